"""The README walks through: every ```console block and the Python snippet run, and print what the README shows.

A console block is a sequence of commands (lines starting with ``$ ``), each followed by the output it shows:
standard output and standard error as a terminal shows them, interleaved. The commands of the whole README run
in order, through bash, in one temporary folder holding a copy of ``examples/`` (so that what one command writes,
the next can read, and nothing is written into the checkout). Two placeholders stand for what changes from run to
run (timings, rates): a line ``...`` matches any number of lines, and ``...`` within a line matches any text.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
#: Seconds one README command may take (the slowest, `gen`, takes a few).
COMMAND_TIMEOUT = 300


@dataclass
class Command:
    line: int  # README line of the command (1-based)
    text: str
    expected: list[str]


def console_commands(text: str) -> list[Command]:
    """The commands of every ```console block, in order, each with the output lines that follow it."""
    out: list[Command] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() != "```console":
            i += 1
            continue
        i += 1
        while i < len(lines) and lines[i].strip() != "```":
            if lines[i].startswith("$ "):
                out.append(Command(i + 1, lines[i][2:], []))
            elif out:
                out[-1].expected.append(lines[i])
            else:
                raise AssertionError(f"README.md:{i + 1}: a console block starts with output, not a command")
            i += 1
        i += 1
    return out


def python_snippets(text: str) -> list[tuple[int, str]]:
    """(line, code) of every ```python block."""
    out = []
    for m in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M):
        out.append((text[:m.start()].count("\n") + 2, m.group(1)))
    return out


def _line_pattern(expected: str) -> re.Pattern[str]:
    return re.compile("^" + ".*".join(re.escape(part) for part in expected.split("...")) + "$")


def matches(expected: list[str], actual: list[str]) -> bool:
    """``actual`` is what ``expected`` shows: line by line, a line ``...`` standing for any number of lines and
    ``...`` within a line for any text."""
    memo: dict[tuple[int, int], bool] = {}

    def go(i: int, j: int) -> bool:
        key = (i, j)
        if key in memo:
            return memo[key]
        if i == len(expected):
            ok = j == len(actual)
        elif expected[i].strip() == "...":
            ok = go(i + 1, j) or (j < len(actual) and go(i, j + 1))
        else:
            ok = j < len(actual) and bool(_line_pattern(expected[i]).match(actual[j])) and go(i + 1, j + 1)
        memo[key] = ok
        return ok

    return go(0, 0)


# -- the machinery, tested on made-up blocks ---------------------------------------------------------------------

def test_console_blocks_are_read_as_commands_and_their_output():
    text = "intro\n```console\n$ a x\nout 1\nout 2\n$ b\n```\n```sh\n$ not run\n```\n```console\n$ c\n```\n"
    got = [(c.text, c.expected) for c in console_commands(text)]
    assert got == [("a x", ["out 1", "out 2"]), ("b", []), ("c", [])]


def test_placeholders():
    assert matches(["a", "...", "d"], ["a", "b", "c", "d"]) and matches(["a", "...", "d"], ["a", "d"])
    assert matches(["gen: ... s generating"], ["gen: 1.25 s generating"])
    assert not matches(["a", "b"], ["a", "b", "c"]) and not matches(["gen: ... s"], ["gen: 1.25 ms"])
    assert not matches(["x (y)"], ["x y"])  # everything but the placeholder is literal


def test_python_snippets_are_found():
    assert python_snippets("a\n```python\nx = 1\ny = 2\n```\n") == [(3, "x = 1\ny = 2\n")]


# -- the README itself --------------------------------------------------------------------------------------------

def _workdir(tmp_path: Path) -> Path:
    """A folder with a copy of examples/, where the README's commands run."""
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    return tmp_path


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")  # the ascverify installed here
    env["COLUMNS"] = "100"
    return env


def _run(cmd: Command, cwd: Path, page: str = "README.md") -> str | None:
    """None when the command prints what the page (the README) shows; else what went wrong."""
    r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd.text], cwd=cwd, env=_env(), stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=COMMAND_TIMEOUT)
    out = r.stdout.decode("utf-8", "replace")
    shown = out.splitlines()
    if "Traceback" in out or r.returncode in (3, 126, 127):
        return f"{page}:{cmd.line}: `{cmd.text}` failed (exit {r.returncode}):\n{out}"
    if not matches(cmd.expected, shown):
        return (f"{page}:{cmd.line}: `{cmd.text}` printed\n" + "\n".join(shown)
                + f"\n--- but {page} shows ---\n" + "\n".join(cmd.expected))
    return None


def test_the_readme_walks_through(tmp_path):
    """Every console command of the README, in order (what one writes, the next reads), prints what it shows."""
    commands = console_commands(README.read_text(encoding="utf-8"))
    assert len(commands) >= 10
    cwd = _workdir(tmp_path)
    problems = [p for p in (_run(c, cwd) for c in commands) if p is not None]
    assert not problems, "\n\n".join(problems)


def test_readme_python_snippets(tmp_path):
    """Each Python snippet runs as printed (in a folder holding examples/), without an error."""
    snippets = python_snippets(README.read_text(encoding="utf-8"))
    assert snippets
    cwd = _workdir(tmp_path)
    for line, code in snippets:
        r = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=_env(), stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=COMMAND_TIMEOUT)
        assert r.returncode == 0, f"README.md:{line}: the Python snippet failed:\n{r.stdout}\n{r.stderr}"


# -- the other pages ----------------------------------------------------------------------------------------------

#: The pages of docs/ that show commands (```console blocks), each walked through as the README is.
DOC_PAGES = sorted(p.name for p in (ROOT / "docs").glob("*.md") if "```console" in p.read_text(encoding="utf-8"))


def test_the_docs_pages_with_commands_are_found():
    assert {"case-format.md", "pictures.md"} <= set(DOC_PAGES)


@pytest.mark.parametrize("page", DOC_PAGES)
def test_each_docs_page_walks_through(tmp_path, page):
    """Every console command of a docs page, in order, in a folder holding examples/, prints what the page shows."""
    commands = console_commands((ROOT / "docs" / page).read_text(encoding="utf-8"))
    assert commands
    cwd = _workdir(tmp_path)
    problems = [p for p in (_run(c, cwd, f"docs/{page}") for c in commands) if p is not None]
    assert not problems, "\n\n".join(problems)

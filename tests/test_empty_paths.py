"""An option naming a file or folder given as "" is bad input (audit 16, M1): `fuzz --findings ""` reported a
finding whose reproducer was never written, `--report "" --junit ""`, `gen --html ""`, `show --svg ""` and `fix -o ""`
saved nothing without a word, `run -o ""` wrote into the current folder. A script's unset variable
(``--report "$REPORT"``) must not turn saving off."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ascverify.cli import main

ROOT = Path(__file__).resolve().parents[1]
BAD = str(ROOT / "examples" / "bad" / "bad.json")
CASE = str(ROOT / "examples" / "bilinear_interpolation.json")


@pytest.mark.parametrize("args, option", [
    (["fuzz", "BlockReduceMin", "-p", "atlas-a2", "--examples", "2", "--findings", ""], "--findings"),
    (["fuzz", "BlockReduceMin", "-p", "atlas-a2", "--examples", "2", "--report", ""], "--report"),
    (["fuzz", "BlockReduceMin", "-p", "atlas-a2", "--examples", "2", "--junit", ""], "--junit"),
    (["gen", "BlockReduceMin", "-p", "atlas-a2", "-n", "2", "-o", "g", "--html", ""], "--html"),
    (["show", BAD, "--svg", ""], "--svg"),
    (["fix", BAD, "-o", ""], "--output"),
    (["run", CASE, "-o", ""], "--output"),
    (["synth", "BlockReduceMin", "-p", "atlas-a2", "-n", "1", "-o", ""], "--output"),
    (["selftest", "--mutant", "write-one-block-late", "--report", ""], "--report"),
])
def test_an_empty_path_is_bad_input(tmp_path, monkeypatch, args, option):
    monkeypatch.chdir(tmp_path)
    got = CliRunner().invoke(main, args)
    assert got.exit_code == 2, got.output
    assert got.output.strip().splitlines() == [f"ascverify: {option}: an empty path: give a file or folder name "
                                               "(`-`: standard input or output, where the option takes it)"]
    assert list(tmp_path.iterdir()) == []  # nothing written, nothing run


@pytest.mark.parametrize("args, field", [
    (["fuzz", "BlockReduceMin", "-p", "atlas-a2", "--examples", "2", "--target", ""], "--target"),
    (["fuzz", "BlockReduceMin", "-p", "atlas-a2", "--examples", "2", "--target-cmd", ""], "--target-cmd"),
    (["replay", ""], "FOLDERS"),
    (["check", ""], "FILES"),
])
def test_an_empty_target_or_argument_is_bad_input(tmp_path, monkeypatch, args, field):
    """audit 20: `fuzz --target ""` dropped the comparison with the user's kernel and passed (exit 0); `replay ""`
    replayed the current folder."""
    monkeypatch.chdir(tmp_path)
    got = CliRunner().invoke(main, args)
    assert got.exit_code == 2 and got.output.strip() == f"ascverify: {field}: an empty value: give what it names"
    assert list(tmp_path.iterdir()) == []


def test_an_empty_campaign_file_name_runs_nothing(tmp_path, monkeypatch):
    """audit 20: `fuzz --config ""` ran the whole default campaign (82 items) and exited 0."""
    monkeypatch.chdir(tmp_path)
    got = CliRunner().invoke(main, ["fuzz", "--config", ""])
    assert got.exit_code == 2 and got.output.strip().startswith("ascverify: --config: an empty path")
    assert list(tmp_path.iterdir()) == []


def fuzz_with_campaign_file(tmp_path, monkeypatch, name: str, text: str):
    """`fuzz --config NAME` run in ``tmp_path`` on a campaign file holding ``text``."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / name).write_text(text)
    return CliRunner().invoke(main, ["fuzz", "--config", name])


def test_an_empty_path_in_a_campaign_file(tmp_path, monkeypatch):
    got = fuzz_with_campaign_file(tmp_path, monkeypatch, "camp.toml",
                                  'apis = ["BlockReduceMin"]\nexamples = 2\nfindings = ""\n')
    assert got.exit_code == 2
    assert got.output.strip() == "ascverify: camp.toml: --config: findings: an empty path: give a file or folder name"


@pytest.mark.skipif(not Path("/sys").is_dir(), reason="needs /sys (Linux)")
def test_a_report_that_cannot_be_written_is_found_before_the_campaign(tmp_path, monkeypatch):
    """audit 16, M2: as root the permission bits say /sys is writable; the campaign ran, then the report failed. A
    file created and removed in the report's folder tells (and leaves nothing behind where it can)."""
    monkeypatch.chdir(tmp_path)
    got = CliRunner().invoke(main, ["fuzz", "BlockReduceMin", "-p", "atlas-a2", "--examples", "5",
                                    "--report", "/sys/ascverify-report.json"])
    assert got.exit_code == 2
    assert got.output.strip().startswith("ascverify: /sys/ascverify-report.json: --report: cannot write")
    assert "cases" not in got.output  # no campaign ran
    got = CliRunner().invoke(main, ["fuzz", "BlockReduceMin", "-p", "atlas-a2", "--examples", "2",
                                    "--report", "out/r.json", "--findings", "f"])
    assert got.exit_code == 0 and (tmp_path / "out" / "r.json").is_file()
    assert not [p for p in tmp_path.rglob(".ascverify-probe-*")]


def test_fuzz_and_selftest_leave_the_current_folder_alone(tmp_path):
    """audit 16, M3: Hypothesis wrote .hypothesis/constants/ (about 100 files) into the folder the command ran in,
    even with --database none and --findings elsewhere. A fresh process: Hypothesis mines those constants once."""
    here = tmp_path / "here"
    here.mkdir()
    for args in (["fuzz", "BlockReduceMin", "-p", "atlas-a2", "--examples", "3", "--database", "none",
                  "--findings", str(tmp_path / "found"), "-q"],
                 ["selftest", "BlockReduceMin", "--mutant", "write-one-block-late", "--examples", "3", "-q"]):
        got = subprocess.run([sys.executable, "-m", "ascverify", *args], cwd=here, capture_output=True, text=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert got.returncode in (0, 1), got.stderr
        assert list(here.iterdir()) == [], args[0]


def read_one_line_of(*args: str) -> tuple[bytes, int, bytes]:
    """Run `ascverify ARGS` in its own process, read one line of its standard output and close the pipe: (the line,
    the exit status, standard error)."""
    proc = subprocess.Popen([sys.executable, "-m", "ascverify", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env={**os.environ, "PYTHONPATH": str(ROOT)})
    first = proc.stdout.readline()
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    return first, proc.returncode, err


def test_a_closed_pipe_is_not_a_finding():
    """audit 16, M4: `ascverify schema | head -1` exited 1, which says "a finding"; now 141 (128 + SIGPIPE), as a
    shell reports a process a closed pipe stopped, and nothing on standard error."""
    first, status, err = read_one_line_of("schema")
    assert first.strip() == b"{"
    assert status == 141 and err == b""


def test_usage_errors_are_one_line():
    """audit 16: a misspelt option or a bad value printed click's four-line usage block; bad input is one line."""
    for args, line in ((["check", "--formt", "json", "x"],
                        "ascverify check: No such option '--formt'. Did you mean '--format'? (see ascverify check --help)"),
                       (["gen", "BlockReduceMin", "-p", "atlas-a2", "-n", "abc", "-o", "x"],
                        "ascverify gen: Invalid value for '-n': 'abc' is not an integer. "
                        "(see ascverify gen --help)"),
                       (["chek", "x"], "ascverify: no such command 'chek' (did you mean 'check'?) (see ascverify --help)")):
        got = CliRunner().invoke(main, args, prog_name="ascverify")
        assert got.exit_code == 2 and got.output.splitlines() == [line], got.output


def test_a_json_campaign_file_gives_each_key_once(tmp_path, monkeypatch):
    """audit 16: a key given twice silently took the last value (TOML refuses it; so does JSON now)."""
    got = fuzz_with_campaign_file(tmp_path, monkeypatch, "c.json",
                                  '{"apis": ["BlockReduceMin"], "examples": 2, "examples": 3}')
    assert got.exit_code == 2 and got.output.strip() == "ascverify: c.json: --config: the key 'examples' is given twice"


def test_show_on_a_closed_pipe_is_141_too(tmp_path):
    """audit 20: `show`'s text goes through rich, whose own answer to a closed pipe was exit status 1."""
    case = {"api": "BlockReduceMin", "product": "atlas-a2", "dtype": "half",
            "args": {"repeatTime": 1, "mask": 128, "dstRepStride": 1, "srcBlkStride": 1, "srcRepStride": 8},
            "tensors": {"dst": {"position": "VECOUT", "addr": 512, "size": 16},
                        "src": {"position": "VECIN", "addr": 0, "size": 128}}}
    path = tmp_path / "many.jsonl"
    path.write_text("\n".join(json.dumps(case) for _ in range(200)) + "\n")
    first, status, err = read_one_line_of("show", "--all", str(path))
    assert first
    assert status == 141 and b"Traceback" not in err


def test_a_toml_campaign_file_has_only_the_fuzz_table(tmp_path, monkeypatch):
    """audit 20: a table beside [fuzz] was read by nothing, silently."""
    got = fuzz_with_campaign_file(tmp_path, monkeypatch, "c.toml",
                                  '[fuzz]\napis = ["BlockReduceMin"]\nexamples = 2\n[other]\nx = 1\n')
    assert got.exit_code == 2
    assert got.output.strip() == "ascverify: c.toml: --config: unknown key 'other' beside the [fuzz] table"


def test_a_finding_json_that_is_no_regular_file_is_said_so(tmp_path):
    """audit 16: a FIFO (or a link to /dev/zero) as finding.json was reported as "no finding.json" -- it is there."""
    folder = tmp_path / "f"
    folder.mkdir()
    os.mkfifo(folder / "finding.json")
    got = CliRunner().invoke(main, ["replay", str(folder)])
    assert got.exit_code == 2
    assert f"ascverify: {folder / 'finding.json'}: is not a regular file" in got.output

"""`ascverify fuzz` and `ascverify replay` end to end: targets, findings, reports, interruption, shared databases."""

from __future__ import annotations

import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from ascverify.cli import main
from ascverify.engines.fuzz.checks import NEGATIVE_CHECKS, invariant_names
from ascverify.spec.registry import get_api

ROOT = Path(__file__).resolve().parents[1]
TARGETS = ROOT / "examples" / "targets"
GOOD = f"{TARGETS / 'bilinear_numpy.py'}:bilinear"
BUGGY = f"{TARGETS / 'bilinear_buggy.py'}:bilinear"


def fuzz(tmp_path: Path, *args: str, findings: str = "findings"):
    """Run `ascverify fuzz` in-process; the result, the JSON report and the JUnit root."""
    report, junit = tmp_path / "report.json", tmp_path / "junit.xml"
    for p in (report, junit):
        p.unlink(missing_ok=True)
    r = CliRunner().invoke(main, ["fuzz", *args, "--findings", str(tmp_path / findings), "--report", str(report),
                                  "--junit", str(junit), "--no-coverage"])
    rep = json.loads(report.read_text()) if report.exists() else None
    root = ET.parse(junit).getroot() if junit.exists() else None
    return r, rep, root


def finding_folders(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith(".")) if folder.exists() else []


def junit_cases(root: ET.Element) -> list[ET.Element]:
    return root.findall("./testsuite/testcase")


def check_junit_counts(root: ET.Element) -> None:
    suite = root.find("testsuite")
    cases = junit_cases(root)
    assert int(suite.get("tests")) == len(cases) == int(root.get("tests"))
    for tag, attr in (("failure", "failures"), ("error", "errors"), ("skipped", "skipped")):
        assert int(suite.get(attr)) == sum(tc.find(tag) is not None for tc in cases), attr


# -- differential --------------------------------------------------------------------------------------------------

def test_buggy_target_yields_one_shrunk_finding_that_replays(tmp_path):
    r, rep, root = fuzz(tmp_path, "BilinearInterpolation", "-p", "atlas-a2", "--target", BUGGY, "--examples", "60",
                        "--seed", "3")
    assert r.exit_code == 1, r.output
    folders = finding_folders(tmp_path / "findings")
    assert len(folders) == 1, folders
    f = folders[0]
    meta = json.loads((f / "finding.json").read_text())
    assert meta["key"] == "differential.mismatch:dst" and meta["shrunk"] and meta["check"] == "differential"
    args = json.loads((f / "case.json").read_text())["args"]
    assert isinstance(args["mask"], list) and args["mask"][0] != args["mask"][1]  # what the bug needs ...
    assert args["hRepeat"] == 1 and args["vRepeat"] == 1                           # ... and nothing more
    for name in ("inputs/src0.bin", "inputs/src0Offset.npy", "expected/dst.npy", "actual/dst.bin", "diff.txt",
                 "coverage.json"):
        assert (f / name).is_file(), name
    assert not np.array_equal(np.load(f / "expected" / "dst.npy"), np.load(f / "actual" / "dst.npy"))
    assert "bilinear.vROffset.range" in json.loads((f / "coverage.json").read_text())
    assert f"{f}: BilinearInterpolation on atlas-a2: differential" in r.stdout      # one line per finding
    assert rep["exit_status"] == 1 and rep["totals"]["findings"] == 1 and not rep["interrupted"]
    check_junit_counts(root)
    (tc,) = junit_cases(root)
    assert tc.get("classname") == "ascverify.fuzz.differential.BilinearInterpolation" and tc.find("failure") is not None

    replayed = CliRunner().invoke(main, ["replay", str(f), "--recorded-target"])
    assert replayed.exit_code == 1 and "still fails: differential.mismatch:dst" in replayed.stdout
    assert f"running the recorded target: the Python function {BUGGY!r}" in replayed.stderr
    fixed = CliRunner().invoke(main, ["replay", str(f), "--target", GOOD])
    assert fixed.exit_code == 0 and "fixed" in fixed.stdout, fixed.output
    # --format json: one document, the same verdicts
    as_json = CliRunner().invoke(main, ["replay", str(f), "--target", GOOD, "--format", "json"])
    doc = json.loads(as_json.stdout)
    assert as_json.exit_code == 0 and doc["summary"] == {"replayed": 1, "still_fail": 0, "fixed": 1, "unreadable": 0,
                                                         "exit_status": 0}
    assert doc["results"][0]["status"] == "fixed" and doc["results"][0]["check"] == "differential"
    failing = json.loads(CliRunner().invoke(main, ["replay", str(f), "--recorded-target", "--format", "json"]).stdout)
    assert failing["results"][0]["status"] == "still fails" and failing["results"][0]["key"] == "differential.mismatch:dst"
    # a --target-cmd whose program does not exist is bad input (2), as for `fuzz`: the target never ran, so the
    # finding is neither "still fails" nor "fixed"
    missing = CliRunner().invoke(main, ["replay", str(f), "--target-cmd", "no_such_program_xyz {dir}"])
    assert missing.exit_code == 2 and "'no_such_program_xyz': command not found" in missing.stderr
    assert "still fails" not in missing.stdout


def test_replay_of_a_findings_folder_replays_each_finding_in_it(tmp_path):
    r, _, _ = fuzz(tmp_path, "BilinearInterpolation", "-p", "atlas-a2", "--target", BUGGY, "--examples", "60",
                   "--seed", "3")
    assert r.exit_code == 1, r.output
    findings = tmp_path / "findings"
    (f,) = finding_folders(findings)
    second = findings / f"{f.name}-copy"
    shutil.copytree(f, second)
    shutil.copytree(f, findings / ".tmp-unfinished")  # a temporary folder of a campaign: not a finding yet
    (findings / "a-link").symlink_to(f, target_is_directory=True)  # a link: passed over (the folder may be anyone's)
    (findings / "notes").mkdir()  # a folder without finding.json: not a finding
    fixed = CliRunner().invoke(main, ["replay", str(findings), "--target", GOOD])
    assert fixed.exit_code == 0, fixed.output
    assert fixed.stdout.splitlines() == [f"{f}: fixed (differential passes now)",
                                         f"{second}: fixed (differential passes now)"]
    assert "2 findings replayed: 0 still fail, 2 fixed" in fixed.stderr
    still = CliRunner().invoke(main, ["replay", str(findings), str(f), "--target", BUGGY])
    assert still.exit_code == 1 and still.stdout.count("still fails: differential.mismatch:dst") == 3, still.output
    # a folder holding neither finding.json nor finding folders is refused, naming both
    empty = CliRunner().invoke(main, ["replay", str(findings / "notes"), "--target", GOOD])
    assert empty.exit_code == 2 and "no finding.json, and no finding folder in it" in empty.stderr


def test_correct_target_yields_no_finding(tmp_path):
    r, rep, root = fuzz(tmp_path, "BilinearInterpolation", "-p", "atlas-350", "--target", GOOD, "--examples", "40")
    assert r.exit_code == 0, r.output
    assert finding_folders(tmp_path / "findings") == []
    assert rep["totals"]["cases"] >= 40 and rep["totals"]["findings"] == 0
    check_junit_counts(root)
    assert root.find("testsuite").get("failures") == "0"


PY_TARGETS = '''
import os, time
def boom(case, inputs):
    raise RuntimeError("kaput")
def hang(case, inputs):
    time.sleep(60)
def die(case, inputs):
    os._exit(7)
def short(case, inputs):
    return {"dst": inputs["dst"][:3]}
'''


@pytest.mark.parametrize("target, key, words", [
    (("--target-cmd", "sh -c 'echo boom >&2; exit 3'"), "differential.crash", "exit status 3"),
    (("--target-cmd", "sh -c 'sleep 30'", "--timeout", "0.3"), "differential.timeout", "no exit within"),
    (("--target-cmd", "sh -c 'head -c 7 /dev/zero > \"$0/outputs/dst.bin\"'"), "differential.shape:dst", "not a whole"),
    (("--target", "t.py:boom"), "differential.crash", "RuntimeError: kaput"),
    (("--target", "t.py:hang", "--timeout", "0.5"), "differential.timeout", "no answer within"),
    (("--target", "t.py:die"), "differential.crash", "died"),
    (("--target", "t.py:short"), "differential.shape:dst", "3 elements"),
], ids=["cmd-crash", "cmd-hang", "cmd-bad-file", "py-raise", "py-hang", "py-exit", "py-short"])
def test_a_failing_target_is_a_finding_not_a_crash(tmp_path, monkeypatch, target, key, words):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "t.py").write_text(PY_TARGETS)
    t0 = time.monotonic()
    r, rep, root = fuzz(tmp_path, "BlockReduceMin", "-p", "atlas-a2", *target, "--examples", "2", "--no-shrink",
                        "--seed", "1")
    assert r.exit_code == 1, r.output
    assert time.monotonic() - t0 < 30
    (f,) = finding_folders(tmp_path / "findings")
    meta = json.loads((f / "finding.json").read_text())
    assert meta["key"] == key and words in meta["message"], meta["message"]
    check_junit_counts(root)


# -- invariants and negative campaigns -----------------------------------------------------------------------------

def test_core_campaign_reports_every_check_of_every_api(tmp_path):
    apis = ("BlockReduceMin", "SetVectorMask")
    r, rep, root = fuzz(tmp_path, *apis, "-p", "atlas-a2", "--examples", "4", "--seed", "5")
    assert r.exit_code == 0, r.output
    check_junit_counts(root)
    names = {(tc.get("classname"), tc.get("name")) for tc in junit_cases(root)}
    expected = {(f"ascverify.fuzz.invariants.{a}", n) for a in apis for n in invariant_names(get_api(a))}
    expected |= {(f"ascverify.fuzz.negative.{a}", n) for a in apis for n in NEGATIVE_CHECKS}
    assert names == expected
    cov = rep["coverage"]["rules"]
    assert set(cov) == set(apis)
    assert cov["BlockReduceMin"]["block_reduce_min.repeatTime.range"]["interior"] \
        + cov["BlockReduceMin"]["block_reduce_min.repeatTime.range"]["boundary"] >= 4
    assert any(c["violated"] for c in cov["BlockReduceMin"].values())             # the negative cases
    assert rep["negative_observed"]["BlockReduceMin"]


# -- interruption --------------------------------------------------------------------------------------------------

def _read_until(proc: subprocess.Popen, needle: str, seconds: float) -> str:
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    seen = ""
    end = time.monotonic() + seconds
    while time.monotonic() < end and needle not in seen:
        if sel.select(timeout=0.5):
            line = proc.stdout.readline()
            if not line:
                break
            seen += line
    return seen


@pytest.mark.parametrize("sig, workers", [(signal.SIGINT, 1), (signal.SIGTERM, 2)], ids=["sigint", "sigterm-2-workers"])
def test_interrupted_campaign_keeps_findings_and_writes_reports(tmp_path, sig, workers):
    """The differential items find their bug within seconds (the whole of them in 4-6 s); the invariants items
    then run for minutes, so the signal always comes while the campaign runs."""
    report, junit = tmp_path / "report.json", tmp_path / "junit.xml"
    cmd = [sys.executable, "-m", "ascverify", "fuzz", "BilinearInterpolation", "--kind", "differential", "--kind",
           "invariants",
           "--target", BUGGY, "--time", "300", "--seed", "3", "--workers", str(workers), "--findings", "findings",
           "--report", str(report), "--junit", str(junit), "--no-coverage"]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out = _read_until(proc, "differential", 90)
        assert "differential" in out, "no finding before the deadline"
        t0 = time.monotonic()
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=40)
        stopped = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert stopped < 25, f"took {stopped:.1f} s to stop"
    doc = json.loads(report.read_text())
    assert doc["interrupted"] and doc["exit_status"] == 130 and doc["totals"]["findings"] >= 1
    check_junit_counts(ET.parse(junit).getroot())
    folders = finding_folders(tmp_path / "findings")
    assert folders and {f"{p}".split("/")[-1] for p in folders} >= {Path(f["path"]).name for f in doc["findings"]}
    assert not [p for p in (tmp_path / "findings").iterdir() if p.name.startswith(".tmp-")]


# -- shared databases ----------------------------------------------------------------------------------------------

RECORDER = f'''
import importlib.util, json, os
_spec = importlib.util.spec_from_file_location("_buggy", {str(TARGETS / "bilinear_buggy.py")!r})
_buggy = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_buggy)
def bilinear(case, inputs):
    with open(os.environ["ASCVERIFY_TEST_LOG"], "a") as f:
        f.write(json.dumps(case, sort_keys=True) + "\\n")
    return _buggy.bilinear(case, inputs)
'''


@pytest.mark.parametrize("kind", ["directory", "redis"])
def test_stored_failures_replay_first_from_the_shared_database(tmp_path, monkeypatch, kind, request):
    if kind == "redis":
        db = request.getfixturevalue("redis_url")  # a private server (tests/conftest.py)
        import redis

        client = redis.Redis.from_url(db)
        for key in client.scan_iter(match="hypothesis-example:ascverify-fuzz/1/BilinearInterpolation/atlas-a2/*"):
            client.delete(key)
        client.delete("hypothesis-example:ascverify-fuzz/1/BilinearInterpolation/atlas-a2/differential")
    else:
        db = str(tmp_path / "db")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rec.py").write_text(RECORDER)
    log = tmp_path / "seen.jsonl"
    monkeypatch.setenv("ASCVERIFY_TEST_LOG", str(log))
    common = ("BilinearInterpolation", "-p", "atlas-a2", "--target", "rec.py:bilinear", "--database", db)
    r, rep, _ = fuzz(tmp_path, *common, "--examples", "60", "--seed", "3", findings="one")
    assert r.exit_code == 1, r.output
    (found,) = finding_folders(tmp_path / "one")
    case = json.loads((found / "case.json").read_text())
    for k in ("name", "comment"):
        case.pop(k)
    for t in case["tensors"].values():
        t.pop("data", None)

    # another machine (another seed, an empty findings folder) with one example: the stored failure comes first
    log.unlink()
    r2, rep2, _ = fuzz(tmp_path, *common, "--examples", "1", "--seed", "11", findings="two")
    assert r2.exit_code == 1, r2.output
    first = json.loads(log.read_text().splitlines()[0])
    assert first == case
    assert [f["id"] for f in rep2["findings"]] == [f["id"] for f in rep["findings"]]


# -- options -------------------------------------------------------------------------------------------------------

def test_campaign_file_and_overrides(tmp_path, monkeypatch):
    from ascverify.cli.fuzz_config import read_config

    shipped = read_config(str(ROOT / "ci" / "campaign.toml"))
    assert shipped["junit"] and shipped["report"] and shipped["findings"]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.toml").write_text('[fuzz]\napis = ["SetVectorMask"]\nproduct = ["atlas-a2"]\nexamples = 3\n'
                                     'kind = ["invariants"]\nseed = 9\n')
    r, rep, _ = fuzz(tmp_path, "--config", "c.toml", "--examples", "2")
    assert r.exit_code == 0, r.output
    assert rep["config"]["examples"] == 2 and rep["config"]["kinds"] == ["invariants"] and rep["config"]["seed"] == 9
    assert [i["key"] for i in rep["items"]] == ["SetVectorMask/atlas-a2/invariants"]
    (tmp_path / "t.toml").write_text('apis = "SetVectorMask"\nproduct = "atlas-a2"\nkind = "invariants"\ntime = 1\n')
    r, rep, _ = fuzz(tmp_path, "--config", "t.toml")
    assert r.exit_code == 0, r.output
    assert rep["config"]["time_budget"] == 1 and rep["config"]["examples"] is None and rep["totals"]["cases"] > 0
    (tmp_path / "bad.toml").write_text("exampels = 3\n")
    bad = CliRunner().invoke(main, ["fuzz", "--config", "bad.toml"])
    assert bad.exit_code == 2 and "did you mean 'examples'" in bad.stderr


# -- a campaign file is someone else's: it runs no code and writes nowhere the user did not say -----------------

def test_a_campaign_files_target_runs_only_with_config_target(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    marker = tmp_path / "ran"
    (tmp_path / "c.toml").write_text(f'target_cmd = "touch {marker} {{dir}}"\nexamples = 2\nproduct = "atlas-a2"\n')
    r = CliRunner().invoke(main, ["fuzz", "--config", "c.toml", "BlockReduceSum", "-q"])
    assert r.exit_code == 2 and not marker.exists()
    assert r.stderr.splitlines() == [f"ascverify: c.toml: --config: the campaign file names a target (target_cmd = "
                                     f"'touch {marker} {{dir}}'); it runs only with --config-target (or give --target "
                                     f"/ --target-cmd)"]
    # a target on the command line is the one that runs
    r = CliRunner().invoke(main, ["fuzz", "--config", "c.toml", "BilinearInterpolation", "-q", "--target", GOOD])
    assert r.exit_code == 0 and not marker.exists(), r.output
    # the user's flag: said first, then run (the marker's target writes no outputs: a finding)
    r = CliRunner().invoke(main, ["fuzz", "--config", "c.toml", "BlockReduceSum", "-q", "--config-target"])
    assert r.stderr.startswith(f"fuzz: running the target the campaign file c.toml names: target_cmd = 'touch {marker}")
    assert marker.exists() and r.exit_code == 1


@pytest.mark.parametrize("line, words", [
    ('report = "/tmp/elsewhere.json"', "report: '/tmp/elsewhere.json' is not under the current folder"),
    ('findings = "../up"', "findings: '../up' is not under the current folder"),
    ('database = "sub/../../db"', "database: 'sub/../../db' is not under the current folder"),
    ('database = "/tmp/x://y"', "database: '/tmp/x://y' is not under the current folder"),  # not a Redis URL
    ('junit = "out/j.xml"', "junit: 'out/j.xml' is not under the current folder"),  # out: a link to elsewhere
    ('seed = 1.5', "seed: expected an integer, got 1.5"),
    ('examples = true', "examples: expected an integer, got true"),
    ('junit = 5', "junit: expected a string, got 5"),
    ('product = ["atlas-a2", 3]', 'product: expected a name or a list of names, got ["atlas-a2", 3]'),
    ('rtol = nan', "rtol: expected a finite number, got NaN"),
    ('time = inf', "time: expected a finite number, got Infinity"),
])
def test_a_campaign_file_writes_only_under_the_current_folder_and_says_what_it_means(tmp_path, monkeypatch, line,
                                                                                    words):
    here, elsewhere = tmp_path / "here", tmp_path / "elsewhere"
    here.mkdir()
    elsewhere.mkdir()
    (here / "out").symlink_to(elsewhere)
    monkeypatch.chdir(here)
    rest = [extra for extra in ('examples = 1', 'product = "atlas-a2"') if extra.split()[0] != line.split()[0]]
    (here / "c.toml").write_text("\n".join([line, *rest]) + "\n")
    r = CliRunner().invoke(main, ["fuzz", "--config", "c.toml", "SetVectorMask", "-q"])
    assert r.exit_code == 2 and words in r.stderr, r.output
    assert len(r.stderr.splitlines()) == 1 and "Traceback" not in r.output
    assert not any(elsewhere.iterdir()) and sorted(p.name for p in here.iterdir()) == ["c.toml", "out"]


def test_a_campaign_file_is_read_within_a_bound(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "big.toml").write_text("# " + "x" * (2 << 20) + "\nexamples = 1\n")
    for config, words in (("big.toml", "the limit is"), ("/dev/zero", "not a regular file")):
        r = CliRunner().invoke(main, ["fuzz", "--config", config, "SetVectorMask", "-q"])
        assert r.exit_code == 2 and words in r.stderr and "--config" in r.stderr, r.output


@pytest.mark.parametrize("args, words", [
    (("NoSuchApi",), "unknown API"),
    (("--target", "no_such_module_xyz:f", "BlockReduceMin"), "cannot import"),
    (("--target", "a:b", "--target-cmd", "c"), "not both"),
    (("--shard", "5/4"), "between 1 and N"),
    (("--shard", "1/99999999999999999"), "N must be at most 4096"),  # cut the campaign into that many parts
    (("--database", "redis://127.0.0.1:1/0"), "cannot reach"),
    (("--kind", "differential"), "needs --target"),
    (("-p", "atlas-training", "--target", GOOD, "BilinearInterpolation"), "--product: nothing to fuzz"),
    # no -p given: the target is what empties the campaign (SetVectorMask writes no output to compare)
    (("--target-cmd", "true {dir}", "SetVectorMask"), "--target-cmd: nothing to fuzz: a differential campaign "
                                                      "compares outputs (tensors, registers), and SetVectorMask has none"),
    (("-p", "atlas-a3x", "SetVectorMask"), "unknown product 'atlas-a3x' (did you mean 'atlas-a3'?)"),
    (("-p", "3", "SetVectorMask"), "unknown product '3'"),
    (("--config-target", "SetVectorMask"), "no campaign file names a target"),
])
def test_bad_options_exit_2(tmp_path, monkeypatch, args, words):
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(main, ["fuzz", "--examples", "1", *args])
    assert r.exit_code == 2, r.output
    assert words in r.stderr and "Traceback" not in r.output


def test_replay_refuses_a_folder_that_is_not_a_finding(tmp_path):
    r = CliRunner().invoke(main, ["replay", str(tmp_path)])
    assert r.exit_code == 2 and "not a finding folder" in r.stderr
    (tmp_path / "notes.txt").write_text("x")
    r = CliRunner().invoke(main, ["replay", str(tmp_path / "notes.txt"), str(tmp_path / "gone")])
    assert r.exit_code == 2
    assert "notes.txt: not a finding folder (a file, not a folder)" in r.stderr
    assert "gone: not a finding folder (no such folder)" in r.stderr


def test_quiet_campaign_prints_no_summary(tmp_path, monkeypatch):
    # docs/cli.md: -q is "no summary or progress on standard error", for fuzz too
    monkeypatch.chdir(tmp_path)
    args = ["fuzz", "SetVectorMask", "-p", "atlas-a2", "--examples", "2", "--seed", "1", "--kind", "invariants"]
    loud = CliRunner().invoke(main, args)
    quiet = CliRunner().invoke(main, [*args, "-q"])
    assert loud.exit_code == quiet.exit_code == 0
    assert "1/1 items, 2 cases" in loud.stderr and quiet.stderr == ""


def test_replay_of_a_clean_campaigns_findings_folder_replays_nothing(tmp_path):
    """A campaign that finds nothing leaves its findings folder with the examples database (.examples) alone:
    replaying it (a CI step after every campaign) is 0 findings, exit 0 -- not "not a finding folder"."""
    r, _, _ = fuzz(tmp_path, "SetMaskNorm", "-p", "atlas-a2", "--examples", "3")
    assert r.exit_code == 0, r.output
    findings = tmp_path / "findings"
    assert [p.name for p in findings.iterdir()] == [".examples"]
    got = CliRunner().invoke(main, ["replay", str(findings), "--target", GOOD])
    assert got.exit_code == 0 and "0 findings replayed" in got.stderr, got.output
    (findings / "notes.txt").write_text("x")  # something else beside it: not a findings folder of a clean run
    assert CliRunner().invoke(main, ["replay", str(findings), "--target", GOOD]).exit_code == 2

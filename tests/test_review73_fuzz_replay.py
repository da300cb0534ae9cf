"""Review 73: a campaign file's writes and values, and replay's finding.json, interruption and unreadable folders."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from ascverify.cli import main
from ascverify.engines.fuzz import reproducers
from ascverify.engines.fuzz.finding_file import FINDING_MAX_BYTES
from ascverify.engines.own_reports import written_by_ascverify

ROOT = Path(__file__).resolve().parents[1]
TARGETS = ROOT / "examples" / "targets"
GOOD = f"{TARGETS / 'bilinear_numpy.py'}:bilinear"
BUGGY = f"{TARGETS / 'bilinear_buggy.py'}:bilinear"


def cli(*argv: object):
    return CliRunner().invoke(main, [*map(str, argv)])


def one_line(r, *words: str) -> str:
    """Exit status 2 and one ``ascverify:`` line on standard error saying ``words``; it is returned."""
    assert r.exit_code == 2, (r.exit_code, r.output, r.exception)
    lines = [line for line in r.stderr.splitlines() if line.startswith("ascverify: ")]
    assert len(lines) == 1, r.stderr
    for w in words:
        assert w in lines[0], lines[0]
    assert "Traceback" not in r.output and "internal error" not in r.output
    return lines[0]


# -- 2. a campaign file replaces only reports ascverify wrote ------------------------------------------------------

CAMPAIGN = 'apis = ["SetMaskNorm"]\nproduct = ["atlas-a2"]\nexamples = 2\nseed = 1\n'


def test_a_campaign_file_does_not_overwrite_a_file_ascverify_did_not_write(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".git").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / ".git" / "config").write_text("[core]\n\trepositoryformatversion = 0\n")
    (tmp_path / "src" / "kernel.cpp").write_text("int main(void) { return 0; }\n")
    before = {p: p.read_bytes() for p in (tmp_path / ".git" / "config", tmp_path / "src" / "kernel.cpp")}
    for key, path in (("report", ".git/config"), ("junit", "src/kernel.cpp")):
        (tmp_path / "campaign.toml").write_text(CAMPAIGN + f'{key} = "{path}"\n')
        line = one_line(cli("fuzz", "--config", "campaign.toml", "-q"), "campaign.toml", "--config", f"{key}:", path,
                        "not a report ascverify wrote")
        assert line.startswith("ascverify: campaign.toml: --config: "), line
    assert {p: p.read_bytes() for p in before} == before
    os.mkfifo(tmp_path / "fifo.json")  # read within a bound, without blocking: not ours
    (tmp_path / "campaign.toml").write_text(CAMPAIGN + 'report = "fifo.json"\n')
    one_line(cli("fuzz", "--config", "campaign.toml", "-q"), "report:", "fifo.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == [".git", "campaign.toml", "fifo.json", "src"]


def test_a_campaign_file_replaces_the_reports_ascverify_wrote_and_the_command_line_anything(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "campaign.toml").write_text(CAMPAIGN + 'report = "r.json"\njunit = "j.xml"\n')
    r = cli("fuzz", "--config", "campaign.toml", "--html", "page.html", "-q")
    assert r.exit_code == 0, r.output
    for name in ("r.json", "j.xml", "page.html"):  # each writer's opening is the marker recognised
        assert written_by_ascverify(tmp_path / name), name
    r = cli("fuzz", "--config", "campaign.toml", "-q")  # a second run replaces its own reports
    assert r.exit_code == 0, r.output
    (tmp_path / "c2.toml").write_text(CAMPAIGN + 'report = "page.html"\n')  # and the HTML page
    assert cli("fuzz", "--config", "c2.toml", "-q").exit_code == 0
    (tmp_path / "mine.txt").write_text("mine\n")
    assert not written_by_ascverify(tmp_path / "mine.txt")
    r = cli("fuzz", "--config", "campaign.toml", "--report", "mine.txt", "-q")  # typed: today's behaviour
    assert r.exit_code == 0, r.output
    assert written_by_ascverify(tmp_path / "mine.txt")


# -- 7. a campaign file's bad values name the file and the key ----------------------------------------------------

@pytest.mark.parametrize("line, words", [
    ("timeout = 1e300", ["timeout:", "86400"]),
    ('product = ["atlas-a22"]', ["product:", "unknown product", "did you mean 'atlas-a2'"]),
    ('apis = ["BlockReduceMn"]', ["apis:", "unknown API", "did you mean 'BlockReduceMin'"]),
    ("seed = -1", ["seed:"]),
    ("examples = 0", ["examples:"]),
    ('kind = "bogus"', ["kind:", "bogus"]),
    ("workers = 100000", ["workers:", "256"]),
    ("time = 0.5", ["time:"]),
    ("error_ratio = 2", ["error_ratio:"]),
    ("rtol = -1", ["rtol:"]),
    ('shard = "5/4"', ["shard:", "K must be between 1 and N"]),
])
def test_a_bad_value_in_a_campaign_file_names_the_file_and_the_key(tmp_path, monkeypatch, line, words):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "campaign.toml").write_text(line + "\n")
    got = one_line(cli("fuzz", "--config", "campaign.toml", "SetMaskNorm", "-p", "atlas-a2", "--examples", "1"),
                   *words)
    assert got.startswith("ascverify: campaign.toml: --config: "), got
    assert "--" + words[0].rstrip(":").replace("_", "-") not in got.split("--config", 1)[1]  # not as if typed


# -- 4, 6, 8, 9. replay ------------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def campaign_finding(tmp_path_factory) -> Path:
    """A differential finding folder of a real campaign (the buggy bilinear target)."""
    where = tmp_path_factory.mktemp("campaign")
    r = subprocess.run([sys.executable, "-m", "ascverify", "fuzz", "BilinearInterpolation", "-p", "atlas-a2",
                        "--target", BUGGY, "--examples", "30", "--seed", "1", "--findings", "F", "-q"],
                       cwd=where, capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stderr
    (found,) = [p for p in (where / "F").iterdir() if not p.name.startswith(".")]
    return found


@pytest.fixture
def finding(tmp_path, campaign_finding) -> Path:
    f = tmp_path / "F0"
    shutil.copytree(campaign_finding, f)
    return f


def edit(folder: Path, old: str, new: str) -> None:
    p = folder / "finding.json"
    text = p.read_text()
    assert old in text
    p.write_text(text.replace(old, new, 1))


def test_a_finding_of_a_campaign_replays_and_one_over_the_bound_is_refused_unread(finding):
    assert len((finding / "finding.json").read_bytes()) < FINDING_MAX_BYTES // 100  # a campaign writes a few KiB
    assert cli("replay", finding, "--target", GOOD).exit_code == 0
    edit(finding, '"detail": ""', '"detail": "' + "x" * FINDING_MAX_BYTES + '"')  # valid JSON, over the bound
    one_line(cli("replay", finding, "--target", GOOD), f"{finding / 'finding.json'}", "limit")
    with open(finding / "finding.json", "r+b") as fh:  # the review's 63 MB: refused from its size
        fh.truncate(63_000_000)
    one_line(cli("replay", finding, "--target", GOOD), f"{finding / 'finding.json'}", "63000000 bytes", "limit")


def test_a_finding_json_holding_infinity_as_a_campaign_writes_it_still_replays(finding):
    edit(finding, '"max_abs_error": ', '"max_rel_error": Infinity, "max_abs_error": ')
    # (the key given twice is refused even on the standard library's path that reads Infinity)
    one_line(cli("replay", finding, "--target", GOOD), "finding.json", "duplicate key 'max_rel_error'")
    edit(finding, '"max_rel_error": Infinity, ', '')
    edit(finding, '"max_rel_error": ', '"max_rel_error": Infinity, "was": ')
    assert cli("replay", finding, "--target", GOOD).exit_code == 0


@pytest.mark.parametrize("old, new, field", [
    ('"kind": "differential",', '"kind": "differential", "kind": "invariants",', "kind"),  # the review's
    ('"kind": "differential",', '"kind": "invariants",', "check"),
    ('"kind": "differential",', '"kind": "negative",', "check"),
    ('"check": "differential",', '"check": "rejects_exactly_the_broken_rule",', "check"),
    ('"key": "differential.mismatch:dst",', '"key": "writes_inside_footprint",', "key"),
    ('"unit": "BilinearInterpolation/atlas-a2/differential",', '"unit": "BilinearInterpolation/atlas-a2/invariants",',
     "unit"),
])
def test_a_relabelled_finding_is_refused_never_reported_as_passing(finding, old, new, field):
    edit(finding, old, new)
    r = cli("replay", finding)  # no target: only a relabelled finding would pass without one
    line = one_line(r, f"{finding / 'finding.json'}: {field}: ")
    assert "fixed" not in r.stdout and "passes now" not in r.output, line


def test_an_interrupted_json_replay_prints_the_findings_replayed(tmp_path, campaign_finding, monkeypatch):
    folders = []
    for i in range(4):
        shutil.copytree(campaign_finding, tmp_path / f"F{i}")
        folders.append(tmp_path / f"F{i}")
    real, calls = reproducers.replay, []

    def stop_at_the_third(folder, **kw):
        calls.append(folder)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(folder, **kw)

    monkeypatch.setattr(reproducers, "replay", stop_at_the_third)
    r = cli("replay", *folders, "--target", GOOD, "--format", "json")
    assert r.exit_code == 130, r.output
    doc = json.loads(r.stdout)
    assert doc["interrupted"] is True and doc["summary"]["exit_status"] == 130
    assert [x["folder"] for x in doc["results"]] == [str(f) for f in folders[:2]]
    assert [x["status"] for x in doc["results"]] == ["fixed", "fixed"]
    assert "2 findings replayed: 0 still fail, 2 fixed" in r.stderr
    assert r.stderr.rstrip().endswith("interrupted (SIGINT)")
    calls.clear()
    r = cli("replay", *folders, "--target", GOOD)  # text: the lines so far and the summary line
    assert r.exit_code == 130 and len(r.stdout.splitlines()) == 2 and "2 findings replayed" in r.stderr


def test_a_finding_folder_whose_finding_json_is_a_fifo_is_one_line_and_the_others_replay(tmp_path, campaign_finding):
    shutil.copytree(campaign_finding, tmp_path / "findings" / "good")
    bad = tmp_path / "findings" / "bad"
    shutil.copytree(campaign_finding, bad)
    (bad / "finding.json").unlink()
    os.mkfifo(bad / "finding.json")
    r = cli("replay", tmp_path / "findings", "--target", GOOD)
    one_line(r, f"{bad / 'finding.json'}", "not a regular file")
    assert r.stdout.splitlines() == [f"{tmp_path / 'findings' / 'good'}: fixed (differential passes now)"]
    assert "1 finding replayed" in r.stderr and "1 folder could not be replayed" in r.stderr

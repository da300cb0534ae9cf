"""`gen` stopped by Ctrl-C or SIGTERM while it looks for cases (an audit of 2026-12-05: over an earlier output it
removed every earlier case folder and wrote a manifest saying "complete": true with 0 cases).

The interrupt is simulated by the generation's own report (what `generate(..., on_interrupt="return")` returns
after a signal), so the tests do not depend on when a signal lands."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import ascverify.engines.gen as gen_engine
from ascverify.cli import main

ARGS = ["gen", "BlockReduceMin", "-p", "atlas-a2", "--seed", "1"]


def earlier_output(tmp_path: Path, n: int) -> tuple[Path, dict[str, bytes]]:
    out = tmp_path / "cases"
    r = CliRunner().invoke(main, [*ARGS, "-n", str(n), "-o", str(out)])
    assert r.exit_code == 0, r.output
    files = {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    return out, files


def stopped_after(monkeypatch, kept: int) -> None:
    """The next generation is stopped by SIGINT after finding ``kept`` cases."""
    real = gen_engine.generate

    def interrupted(*args, **kwargs):
        g = real(*args, **kwargs)
        g.cases = g.cases[:kept]
        g.report["interrupted"] = "SIGINT"
        g.report["stopped"] = "interrupted (SIGINT)"
        return g

    monkeypatch.setattr(gen_engine, "generate", interrupted)


def test_stopped_before_any_case_leaves_an_earlier_output_as_it_was(tmp_path, monkeypatch):
    out, before = earlier_output(tmp_path, 6)
    stopped_after(monkeypatch, 0)
    r = CliRunner().invoke(main, [*ARGS, "-n", "20", "-o", str(out)])
    assert r.exit_code == 130, r.output
    assert "before any case was found: nothing written" in r.stderr
    after = {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    assert after == before  # byte for byte: the manifest too


def test_stopped_before_any_case_in_a_new_folder_records_what_was_tried(tmp_path, monkeypatch):
    # no earlier output to keep: the manifest says what was tried (boundary mode: the targets left undecided)
    stopped_after(monkeypatch, 0)
    r = CliRunner().invoke(main, [*ARGS, "-n", "20", "-o", str(tmp_path / "new")])
    assert r.exit_code == 130, r.output
    doc = json.loads((tmp_path / "new" / "manifest.json").read_text())
    assert doc["complete"] is False and doc["cases"] == [] and doc["stopped"] == "interrupted (SIGINT)"


def test_stopped_after_some_cases_is_not_complete_and_keeps_the_earlier_cases(tmp_path, monkeypatch):
    out, before = earlier_output(tmp_path, 8)
    earlier_dirs = sorted(p.name for p in out.iterdir() if p.is_dir())
    assert len(earlier_dirs) == 8
    stopped_after(monkeypatch, 3)
    r = CliRunner().invoke(main, [*ARGS, "-n", "20", "-o", str(out)])
    assert r.exit_code == 130, r.output
    doc = json.loads((out / "manifest.json").read_text())
    assert doc["complete"] is False and len(doc["cases"]) == 3
    # the five earlier case folders this run did not replace are still there, listed as stale (a later run of
    # ascverify replaces them), never removed for an interrupted run
    assert sorted(doc["stale_cases"]) == earlier_dirs[3:]
    for name in earlier_dirs[3:]:
        assert (out / name / "case.json").read_bytes() == before[f"{name}/case.json"]

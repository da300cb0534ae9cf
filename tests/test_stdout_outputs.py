"""`-` names standard output for every option that writes one file (`show --svg/--png`, `fuzz --report/--junit/
--html`, `selftest --report`, `gen --html`), as it does for `fix -o` and `synth -o`: the file's content is then
standard output's alone (the command's other results go to standard error or are left out), no file named `-` is
made, and two options cannot both take standard output."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from ascverify.cli import main

ROOT = Path(__file__).resolve().parents[1]
BAD = str(ROOT / "examples" / "bad" / "bad.json")
#: a few invariant cases of an API without outputs: the fastest campaign there is
QUICK_FUZZ = ["fuzz", "SetVectorMask", "-p", "atlas-a2", "--examples", "2", "--seed", "1", "--kind", "invariants"]


@pytest.fixture(autouse=True)
def in_tmp(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    yield tmp_path
    assert not (tmp_path / "-").exists(), "a file named - was written"


def invoke(*args: str):
    return CliRunner().invoke(main, list(args))


def test_show_svg_to_standard_output_replaces_the_text_map():
    r = invoke("show", BAD, "--svg", "-")
    assert r.exit_code == 1, r.output  # the case breaks rules: the map is drawn, the status says so
    assert r.stdout_bytes.lstrip().startswith(b"<?xml") and r.stdout_bytes.rstrip().endswith(b"</svg>")
    ET.fromstring(r.stdout_bytes)  # one well-formed SVG document, nothing else
    assert "SVG picture to standard output" in r.stderr


def test_show_png_to_standard_output():
    r = invoke("show", BAD, "--png", "-")
    assert r.exit_code == 1, r.output
    assert r.stdout_bytes.startswith(b"\x89PNG\r\n\x1a\n")


def test_two_pictures_cannot_both_take_standard_output():
    r = invoke("show", BAD, "--svg", "-", "--png", "-")
    assert r.exit_code == 2 and "standard output (-) is also the output of --svg" in r.stderr
    assert r.stdout_bytes == b""


def test_fuzz_report_to_standard_output_is_one_json_document():
    r = invoke(*QUICK_FUZZ, "--report", "-")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["exit_status"] == 0 and "coverage" in doc
    assert "reports: standard output" in r.stderr


def test_fuzz_junit_to_standard_output():
    r = invoke(*QUICK_FUZZ, "--junit", "-")
    assert r.exit_code == 0, r.output
    suites = ET.fromstring(r.stdout_bytes)
    assert suites.tag == "testsuites" and suites.get("tests") == "2"


def test_fuzz_findings_move_to_standard_error_when_the_report_takes_standard_output():
    # the shipped buggy kernel: findings come in the first cases; their lines must not break the JSON
    target = str(ROOT / "examples" / "targets" / "bilinear_buggy.py") + ":bilinear"
    r = invoke("fuzz", "BilinearInterpolation", "-p", "atlas-a2", "--target", target, "--examples", "20", "--seed", "1",
               "--findings", "found", "--report", "-")
    assert r.exit_code == 1, r.output
    doc = json.loads(r.stdout)
    assert doc["findings"] and "found/" in r.stderr


def test_fuzz_two_reports_cannot_both_take_standard_output():
    r = invoke(*QUICK_FUZZ, "--report", "-", "--junit", "-")
    assert r.exit_code == 2 and "standard output (-) is also the output of --report" in r.stderr


def test_fuzz_html_to_standard_output():
    r = invoke(*QUICK_FUZZ, "--html", "-")
    assert r.exit_code == 0, r.output
    assert r.stdout.lstrip().lower().startswith("<!doctype html>") and r.stdout.rstrip().endswith("</html>")


def test_selftest_report_to_standard_output_moves_the_table_to_standard_error():
    r = invoke("selftest", "BilinearInterpolation", "--mutant", "mask-words-swapped", "--examples", "5", "--report", "-")
    assert r.exit_code == 0, r.output
    doc = json.loads(r.stdout)
    assert doc["complete"] is True and doc["killed"] == doc["counted"] == 1
    assert "kill rate: 1/1" in r.stderr


def test_gen_html_to_standard_output(in_tmp):
    r = invoke("gen", "BlockReduceMin", "-p", "atlas-a2", "-n", "2", "-o", "cases", "--html", "-")
    assert r.exit_code == 0, r.output
    assert r.stdout.lstrip().lower().startswith("<!doctype html>")
    assert "manifest.json" not in r.stdout and (in_tmp / "cases" / "manifest.json").is_file()
    assert sorted(os.listdir(in_tmp)) == ["cases"]


# -- a file option's folder ------------------------------------------------------------------------------------------

def test_every_file_option_creates_its_folder(in_tmp):
    # fix -o and synth -o refused a missing folder ("No such file or directory") where --report, --svg, --html
    # created it: one rule now, the folder is created when needed
    r = invoke("fix", str(ROOT / "examples" / "bad" / "bad.json"), "-o", "a/b/fixed.json")
    assert r.exit_code == 0, r.output
    assert json.loads((in_tmp / "a" / "b" / "fixed.json").read_text())["args"]["vROffset"] != 100
    r = invoke("synth", "SetVectorMask", "-p", "atlas-a2", "-n", "2", "-o", "c/d/cases.jsonl")
    assert r.exit_code == 0, r.output
    assert len((in_tmp / "c" / "d" / "cases.jsonl").read_text().splitlines()) == 2
    r = invoke("show", BAD, "--svg", "e/map.svg")
    assert r.exit_code == 1 and (in_tmp / "e" / "map.svg").is_file()


def test_a_file_in_the_way_of_the_folder_is_refused_before_the_work(in_tmp):
    (in_tmp / "afile").write_text("x")
    r = invoke("synth", "SetVectorMask", "-p", "atlas-a2", "-n", "2", "-o", "afile/cases.jsonl")
    assert r.exit_code == 2 and "afile is not a folder" in r.stderr and r.stdout == ""
    assert (in_tmp / "afile").read_text() == "x"

"""What a newcomer met in the review of 2026-12-06: hints where the tool was silent (a multi-case file read at case
0, a valid case's warnings, `-` waiting on a terminal), and options checked before the work instead of after it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from ascverify import get_api
from ascverify.cli import main
from ascverify.spec.products import PRODUCT_IDS

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "examples" / "cases.jsonl"


def cli(*argv, input=None):
    return CliRunner().invoke(main, [str(a) for a in argv], input=input)


def test_explain_and_fix_name_the_other_cases_of_a_file():
    """examples/cases.jsonl holds 7 cases (case 0 valid, case 5 invalid): a valid case 0 says it is one of 7."""
    n = sum(1 for line in CASES.read_text().splitlines() if line.strip())
    for command in ("explain", "fix"):
        got = cli(command, CASES)
        assert got.exit_code == 0, got.output
        assert f"the file holds {n} cases, this is case 0 (--index N picks another" in got.stderr
    one = cli("explain", ROOT / "examples" / "bilinear_interpolation.json")
    assert one.exit_code == 0 and "the file holds" not in one.stderr


def test_fix_of_a_valid_case_with_warnings_says_so():
    doc = '{"api": "SetMaskNorm", "product": "atlas-training", "dtype": "half", "args": {}}'
    got = cli("fix", "-", input=doc)
    assert got.exit_code == 0 and "valid: nothing to fix; it draws 1 warning" in got.stderr, got.output
    plain = cli("fix", "-", input=doc.replace("atlas-training", "atlas-a2"))
    assert plain.exit_code == 0 and "warning" not in plain.stderr, plain.output


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="no pseudo-terminal on this platform")
def test_standard_input_on_a_terminal_says_what_it_waits_for():
    import pty  # (POSIX only)

    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "ascverify", "check", "-"], stdin=slave, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT)
    os.close(slave)
    try:
        time.sleep(1.0)  # (not a timing assertion: the case is typed after the prompt had time to appear)
        os.write(master, b'{"api": "SetMaskNorm", "product": "atlas-a2", "dtype": "half", "args": {}}\n')
        os.write(master, b"\x04")  # Ctrl-D
        out, err = proc.communicate(timeout=60)
    finally:
        os.close(master)
    assert proc.returncode == 0, err
    assert err.decode().startswith("ascverify: reading cases from standard input (the terminal); end with Ctrl-D")
    piped = subprocess.run([sys.executable, "-m", "ascverify", "check", "-"], cwd=ROOT, capture_output=True,
                           input=b'{"api": "SetMaskNorm", "product": "atlas-a2", "dtype": "half", "args": {}}\n')
    assert piped.returncode == 0 and b"reading cases" not in piped.stderr


@pytest.mark.parametrize("option", ["--findings", "--database"])
def test_fuzz_refuses_standard_output_as_a_folder(tmp_path, monkeypatch, option):
    monkeypatch.chdir(tmp_path)
    args = ["fuzz", "SetMaskNorm", "-p", "atlas-a2", "--examples", 2, option, "-"]
    if option == "--database":
        args += ["--findings", tmp_path / "f"]
    got = cli(*args)
    assert got.exit_code == 2 and f"{option}: needs a folder; - (standard output)" in got.stderr, got.output
    assert not (tmp_path / "-").exists()


def test_an_html_page_that_cannot_be_written_is_refused_before_the_work(tmp_path):
    """/proc takes no new file: gen refuses before making its folder, fuzz before its campaign (no report)."""
    out = tmp_path / "g"
    got = cli("gen", "BlockReduceMin", "-p", "atlas-a2", "-n", 3, "-o", out, "--html", "/proc/ascverify-page.html")
    assert got.exit_code == 2 and "--html: cannot write" in got.stderr, got.output
    assert not out.exists()
    same = cli("gen", "BlockReduceMin", "-p", "atlas-a2", "-n", 3, "-o", out, "--html", out)
    assert same.exit_code == 2 and "is the output folder -o" in same.stderr and not out.exists(), same.output
    report = tmp_path / "report.json"
    got = cli("fuzz", "SetMaskNorm", "-p", "atlas-a2", "--examples", 2, "--findings", tmp_path / "f", "--report",
              report, "--html", "/proc/ascverify-page.html")
    assert got.exit_code == 2 and "--html: cannot write" in got.stderr, got.output
    assert not report.exists()


def test_wording_of_one_api_and_of_a_call_not_run(tmp_path):
    got = cli("diff-products", "atlas-a2", "atlas-training", "BlockReduceMin")
    assert "atlas-a2 vs atlas-training: 1 of 1 API differs" in got.stderr, got.output

    prog = json.loads((ROOT / "examples" / "program_block_reduce_min.json").read_text())
    prog["calls"].pop(0)  # the call left is invalid alone: not run
    (tmp_path / "p.json").write_text(json.dumps(prog))
    shown = cli("show", "--no-run", tmp_path / "p.json")
    (line,) = [x for x in shown.stdout.splitlines() if x.startswith("verdict:")]
    assert line.endswith("core: not run") and "(not run)" not in line, line


def test_show_all_draws_the_readable_cases_and_names_the_unreadable_one(tmp_path):
    lines = [x for x in CASES.read_text().splitlines() if x.strip()][1:3]
    (tmp_path / "three.jsonl").write_text("\n".join(lines + ['{"api": "nope"}']) + "\n")
    got = cli("show", "--all", tmp_path / "three.jsonl", "--format", "json")
    assert got.exit_code == 2, got.output

    assert len(json.loads(got.stdout)["maps"]) == 2  # the two readable cases, drawn
    assert "three.jsonl:case 2: api: unknown API 'nope'" in got.stderr
    alone = cli("show", "--index", 2, tmp_path / "three.jsonl")
    assert alone.exit_code == 2 and alone.stdout == ""


def test_synth_says_where_it_wrote_its_cases(tmp_path):
    out = tmp_path / "s.jsonl"
    got = cli("synth", "SetVectorMask", "-p", "atlas-a2", "-n", 2, "-o", out)
    assert got.exit_code == 0, got.output
    assert f"synth: 2 cases written to {out}" in got.stderr
    assert len(out.read_text().splitlines()) == 2
    piped = cli("synth", "SetVectorMask", "-p", "atlas-a2", "-n", 2)
    assert piped.exit_code == 0 and "written to" not in piped.stderr


def test_a_missing_product_names_the_products_the_api_supports():
    """gen and synth need -p: the usage error lists where the API runs (BlockReduceMin is not on the inference
    Vector Core; the SetVectorMask... support matrix says so), one line, exit 2."""
    supported = [p for p in PRODUCT_IDS if p in get_api("BlockReduceMin").support]
    assert "atlas-inference-vectorcore" not in supported
    for command in ("gen", "synth"):
        got = cli(command, "BlockReduceMin", *(["-o", "out"] if command == "gen" else []))
        assert got.exit_code == 2 and len(got.stderr.splitlines()) == 1, got.output
        assert f"the products BlockReduceMin supports are {', '.join(supported)}" in got.stderr
    unknown = cli("synth", "NoSuchApi")
    assert unknown.exit_code == 2 and "atlas-inference-vectorcore" in unknown.stderr


def test_click_words_for_numbers_are_plain():
    """newcomer review L15: click called '1e6' "not a valid integer range" and took -1 for an unknown option."""
    got = cli("check", "--max-bytes", "1e6", ROOT / "examples" / "bad" / "bad.json")
    assert got.exit_code == 2 and "Invalid value for '--max-bytes': '1e6' is not an integer." in got.stderr
    neg = cli("decode", "load3d", "-1", "0")
    assert neg.exit_code == 2 and len(neg.stderr.splitlines()) == 1
    assert "No such option '-1'. (a word starting with - is read as an option: to pass a negative number, put -- before" in neg.stderr
    # as it says: after --, the word is read and refused as a uint64 should be
    after = cli("decode", "load3d", "--", "-1", "0")
    assert after.exit_code == 2 and "CONFIG0: '-1' is outside uint64" in after.stderr
    # an option misspelt is not a number: no such hint
    typo = cli("check", "--formt", "json", "x")
    assert typo.exit_code == 2 and "negative number" not in typo.stderr


def test_an_unknown_api_argument_is_named_alike_by_every_command():
    """newcomer review L5: fuzz and selftest said "api:" (the case file's key) where the others say "API" (the
    argument)."""
    want = "ascverify: API: unknown API 'BlockReduceMn' (did you mean 'BlockReduceMin'?)"
    for argv in (("fuzz", "BlockReduceMn"), ("selftest", "BlockReduceMn"), ("lint", "BlockReduceMn"),
                 ("synth", "BlockReduceMn", "-p", "atlas-a2"), ("rules", "BlockReduceMn")):
        got = cli(*argv)
        assert got.exit_code == 2 and got.stderr.strip() == want, (argv, got.output)
    # a name with no near spelling: every command lists the APIs in the same words (`rules` had its own wording)
    listed = {cli(*argv).stderr.strip() for argv in (("rules", "Nope"), ("fuzz", "Nope"), ("lint", "Nope"))}
    assert len(listed) == 1, listed
    only = listed.pop()
    assert only.startswith("ascverify: API: unknown API 'Nope' (known: BilinearInterpolation, ") and "ResetMask" in only


def test_synth_names_why_every_case_warns():
    """Without --fix, the warning every case draws is the product's doing (ResetMask on the training series: its
    page lists the product as unsupported, the vendor's code calls it there): the note must not blame --fix."""
    got = cli("synth", "ResetMask", "-p", "atlas-training", "-n", "1")
    assert got.exit_code == 0, got.output
    assert "every case of this API and product draws a warning ([reset_mask.product.page])" in got.stderr
    assert "--fix" not in got.stderr

"""`ascverify synth`: distinct valid cases as JSON Lines; conflicts named with a minimal core."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from ascverify import apis, check_case, get_api, parse_case
from ascverify.cli import main


def invoke(*args):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_synth_writes_distinct_valid_cases(tmp_path):
    out = tmp_path / "cases.jsonl"
    r = invoke("synth", "BilinearInterpolation", "--product", "atlas-a3", "-n", "6", "--seed", "4", "-o", str(out))
    assert r.exit_code == 0, r.output
    lines = out.read_text().splitlines()
    assert len(lines) == 6 and len(set(lines)) == 6
    assert all(json.loads(line)["product"] == "atlas-a3" for line in lines)
    checked = invoke("check", str(out))
    assert checked.exit_code == 0, checked.output


def test_synth_with_fixes_keeps_them():
    r = invoke("synth", "BilinearInterpolation", "--product", "atlas-a2", "-n", "3", "--fix", "hRepeat=7",
               "--fix", "mask=[255,0]")
    assert r.exit_code == 0, r.output
    for line in r.stdout.splitlines():
        doc = json.loads(line)
        assert doc["args"]["hRepeat"] == 7 and doc["args"]["mask"] == [255, 0]


def test_synth_names_the_conflicting_rules():
    # vROffset 128 (8 blocks) with blocks 8 apart: iteration 1 starts on iteration 0's block 1
    r = invoke("synth", "BilinearInterpolation", "--product", "atlas-a2", "--fix", "vROffset=128",
               "--fix", "dstBlkStride=8", "--fix", "vRepeat=2")
    assert r.exit_code == 1
    # on standard error: standard output is the JSON Lines of cases (`synth ... | ascverify check -` read the
    # conflict as a broken case file)
    assert r.stdout == ""
    assert "[bilinear.dst.vertical_overlap]" in r.stderr and "BilinearInterpolation, Restrictions" in r.stderr
    assert "fix dstBlkStride=8" in r.stderr


def test_synth_on_an_unsupported_product_or_type_is_bad_input_as_in_gen():
    r = invoke("synth", "BilinearInterpolation", "--product", "atlas-training")
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.startswith("ascverify: --product: BilinearInterpolation is not supported on atlas-training")
    r = invoke("synth", "BlockReduceMin", "-p", "atlas-training", "--dtype", "float")  # half only there
    assert r.exit_code == 2 and "does not support T=float on atlas-training" in r.stderr
    g = invoke("gen", "BlockReduceMin", "-p", "atlas-training", "--dtype", "float", "-o", "unused")
    assert g.exit_code == 2 and g.stderr == r.stderr


def test_synth_input_errors_exit_2():
    for args in (["BilinearInterpolaton", "--product", "atlas-a2"], ["BilinearInterpolation", "--product", "atlas-a9"],
                 ["BilinearInterpolation", "--product", "atlas-a2", "--fix", "hRepet=1"],
                 ["BilinearInterpolation", "--product", "atlas-a2", "--dtype", "halff"]):
        r = CliRunner().invoke(main, ["synth", *args])
        assert r.exit_code == 2, (args, r.output)
        assert "Traceback" not in r.output and "did you mean" in r.output


def _warnings_of(lines):
    return [[w.id for w in check_case(parse_case(json.loads(line))).warnings] for line in lines]


def test_synthesized_cases_draw_no_warning():
    """The cases are free of warnings too: with only the error rules, BlockReduceMax cases came with isSetMask=false
    and a mask that has no effect (block_reduce_max.mask.ignored), Load3DBitMode cases with a dst smaller than
    what the load stores (load3d.dst.size)."""
    r = invoke("synth", "BlockReduceMax", "--product", "atlas-a2", "-n", "20", "--seed", "0")
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert len(lines) == 20 and _warnings_of(lines) == [[]] * 20


def test_a_fix_that_every_case_warns_of_gives_such_cases_with_a_note():
    r = invoke("synth", "BlockReduceMax", "--product", "atlas-a2", "-n", "3", "--fix", "repeatTime=0")
    assert r.exit_code == 0, r.output
    assert "every case draws a warning ([block_reduce_max.repeatTime.zero])" in r.stderr
    # only that warning: the others are still kept away
    assert _warnings_of(r.stdout.splitlines()) == [["block_reduce_max.repeatTime.zero"]] * 3


def test_the_same_seed_gives_the_same_cases_past_a_solver_renewal():
    """Two processes, the same seed: the same 120 lines, though the sampling renews its solver every 100 tries
    (engines.solver.FRESH_SOLVER_EVERY) -- the renewal is at fixed tries, with the first solver's seed."""
    argv = [sys.executable, "-m", "ascverify", "synth", "BlockReduceMax", "-p", "atlas-a2", "-n", "120", "--seed", "3"]
    runs = [subprocess.run(argv, capture_output=True, text=True, timeout=600) for _ in range(2)]
    assert all(r.returncode == 0 for r in runs), [r.stderr for r in runs]
    lines = runs[0].stdout.splitlines()
    assert len(lines) == 120 == len(set(lines)) and runs[1].stdout == runs[0].stdout
    assert all(check_case(parse_case(json.loads(line))).valid for line in lines)


@pytest.mark.parametrize("api", [m.name for m in apis()])
def test_every_api_s_synth_lines_are_distinct_readable_and_valid(api):
    """Distinct as written, not as the solver's fields: SetFmatrix's lines were 7 of 15 the same
    `"fmatrix": null` (the required struct left out, which the reader refuses), each with other values in the
    struct's unseen members."""
    model = get_api(api)
    product = model.supported_products()[0]
    r = invoke("synth", api, "-p", product, "-n", "12", "--seed", "3")
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert len(lines) == len(set(lines)) and lines
    for line in lines:
        case = parse_case(json.loads(line))  # the reader `check` uses: an unreadable line raises here
        assert check_case(case).valid, line

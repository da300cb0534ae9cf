"""Every case `gen` writes is a case file `check` reads, and gets from `check` the verdict its manifest entry says
(a hostile review of `gen --mode boundary`: LoadAlign case_0025 "expect failed, breaks addrReg.stride1.type" was
written with one AddrReg level, the stride dropped, and `check` found it valid -- 15 of 65 LoadAlign cases, 20 of 85
LoadAlignRegTensor, a repeatStride of 2^32 written without the PostUpdate form it needs, Load3DBitMode's fmatrix
member targets written without fmatrix; BlockReduceMin's mask words of 2^64 and SetFmatrix's padValue of
-2^63 - 1 made files `check` cannot read; gen exited 0 all the same).

The cases are read back from the folder with the reader `check` uses (`read_cases`), never from gen's own objects."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from ascverify import check_case, get_api
from ascverify.cases.caseio import cases_from_bytes, read_cases
from ascverify.cli import main
from ascverify.engines.gen import output as gen_output
from ascverify.engines.gen.solving import Solving
from ascverify.engines.gen.targets import rule_targets, solve_target
from ascverify.spec.params import ABS_MAX, ABS_MIN

#: (API, product): every registered API whose whole boundary run takes a few seconds (BilinearInterpolation,
#: Load3DBitMode and LoadDataWithStride take minutes: Load3DBitMode's struct members are tested below)
FAST = [("SetVectorMask", "atlas-350"), ("SetMaskCount", "atlas-350"), ("SetMaskNorm", "atlas-350"),
        ("ResetMask", "atlas-350"), ("SetLoadDataRepeatWithStride", "atlas-350"), ("LoadAlign", "atlas-350"),
        ("LoadAlignRegTensor", "atlas-350"), ("LoadAlignDataBlock", "atlas-350"),
        ("MaskGenWithRegTensor", "atlas-350"), ("SetFmatrix", "atlas-350"), ("BlockReduceMin", "atlas-a2"),
        ("BlockReduceSum", "atlas-a2")]


def gen(*argv: str):
    return CliRunner().invoke(main, ["gen", *argv])


def disagreements(out: Path) -> list[tuple[str, str]]:
    """Each case of the manifest whose file, read as `check` reads it, does not get the verdict the entry says:
    expect success, no error; expect failed, every rule of ``breaks`` an error (and at least one)."""
    doc = json.loads((out / "manifest.json").read_text())
    bad = []
    for entry in doc["cases"]:
        got = list(read_cases(str(out / entry["case_file"])))
        if len(got) != 1 or got[0].case is None:
            bad.append((entry["case_name"], f"unreadable: {got[0].error if got else 'empty'}"))
            continue
        errors = {v.id for v in check_case(got[0].case).violations}
        if entry["expect"] == "success" and errors:
            bad.append((entry["case_name"], f"expect success, breaks {sorted(errors)}"))
        if entry["expect"] == "failed" and (not errors or not set(entry["breaks"]) <= errors):
            bad.append((entry["case_name"], f"expect failed {entry['breaks']}, breaks {sorted(errors)}: {entry['why']}"))
    return bad


@pytest.mark.parametrize("api, product", FAST, ids=[a for a, _ in FAST])
def test_every_boundary_case_file_gets_the_verdict_its_manifest_says(tmp_path, api, product):
    out = tmp_path / "bnd"
    r = gen(api, "-p", product, "--mode", "boundary", "-o", str(out), "-q")
    assert r.exit_code == 0, r.output
    assert disagreements(out) == []
    doc = json.loads((out / "manifest.json").read_text())
    assert not [c["case_name"] for c in doc["cases"] if c.get("problem")]


def covered_files(out, api: str, *tids: str) -> list[dict]:
    """gen --mode boundary of ``api`` on atlas-350 into ``out``; for each target id, the case file that covers it
    (the target must be covered by exactly one case)."""
    assert gen(api, "-p", "atlas-350", "--mode", "boundary", "-o", str(out), "-q").exit_code == 0
    doc = json.loads((out / "manifest.json").read_text())
    files = []
    for tid in tids:
        t = next(t for t in doc["coverage"]["all"] if t["id"] == tid)
        assert t["status"] == "covered" and len(t["cases"]) == 1, t
        files.append(json.loads((out / t["cases"][0] / "case.json").read_text()))
    return files


def test_an_addrreg_level_target_is_written_with_that_level(tmp_path):
    # LoadAlign's case_0025: addrReg.stride1 = -1 needs a second level; with one, the file holds no stride1; an
    # AddrReg of five levels (one more than the four the rule allows) is written with five
    stride, levels = covered_files(tmp_path / "bnd", "LoadAlign",
                                   "rule:reg_load_align.addrReg.stride1.type:addrReg.stride1 = -1 (below)",
                                   "rule:reg_load_align.addrReg.levels:addrReg.levels = 5 (above)")
    assert stride["args"]["addrReg"]["strides"][1] == -1  # the second level is in the file
    assert len(levels["args"]["addrReg"]["strides"]) == len(levels["args"]["addrReg"]["indices"]) == 5


def test_a_repeat_stride_target_is_written_in_the_post_update_form(tmp_path):
    # LoadAlignDataBlock: repeatStride is an argument of the PostUpdate prototype only (2^32 was written in a case of
    # the plain prototype, where the file holds no repeatStride)
    (written,) = covered_files(tmp_path / "bnd", "LoadAlignDataBlock",
                               "rule:reg_load_align_block.repeatStride.type:repeatStride = 4294967296 (above)")
    # the prototype that takes repeatStride takes postMode too (the model's forms: none of them, or both)
    assert written["args"]["repeatStride"] == 2**32 and "postMode" in written["args"]


@pytest.mark.parametrize("member", ["l1H", "l1W", "padValue"])
def test_load3d_fmatrix_member_targets_are_cases_with_fmatrix(member):
    """Load3DBitMode's whole boundary run takes minutes: its fmatrix member targets are solved here one by one, and
    each case written (`Case.to_json`, what a case file holds) and read back must get the target's verdict."""
    model = get_api("Load3DBitMode")
    sv = Solving(model, model.context("atlas-350", "uint8"))
    targets = [t for t in rule_targets(sv) if t.rule == f"load3d.fmatrix.{member}.type" and t.status == "pending"]
    illegal = [t for t in targets if t.expect == "failed"]
    assert illegal
    for t in illegal:
        out = solve_target(sv, t)
        assert out.status == "sat", t.id
        doc = out.case.to_json()
        assert isinstance(doc["args"].get("fmatrix"), dict), t.id  # the struct the target is about is in the file
        case = next(iter(cases_from_bytes(json.dumps(doc).encode(), "<case>"))).case  # as `check` reads it
        assert t.rule in {v.id for v in check_case(case).violations}, t.id


def integers(x) -> list[int]:
    """Every integer in a JSON value."""
    if isinstance(x, bool):
        return []
    if isinstance(x, int):
        return [x]
    if isinstance(x, dict):
        return [i for v in x.values() for i in integers(v)]
    if isinstance(x, list):
        return [i for v in x for i in integers(v)]
    return []


@pytest.mark.parametrize("api, product, tid", [
    ("BlockReduceMin", "atlas-a2", "rule:block_reduce_min.mask.w0.type:mask.w0 = 18446744073709551616 (above)"),
    ("SetFmatrix", "atlas-350",
     "rule:set_fmatrix.fmatrix.padValue.type:fmatrix.padValue = -9223372036854775809 (below)"),
])
def test_a_value_no_case_file_can_hold_is_skipped_not_written(tmp_path, api, product, tid):
    out = tmp_path / "bnd"
    r = gen(api, "-p", product, "--mode", "boundary", "-o", str(out))
    assert r.exit_code == 0, r.output
    doc = json.loads((out / "manifest.json").read_text())
    t = next(t for t in doc["coverage"]["all"] if t["id"] == tid)
    assert t["status"] == "skipped" and t["cases"] == [] and "beyond what a case file can hold" in t["reason"]
    # no written case holds an integer outside [-2^63, 2^64 - 1], nor a struct written as null
    for entry in doc["cases"]:
        written = json.loads((out / entry["case_file"]).read_text())
        assert None not in written["args"].values(), entry["case_name"]
        assert all(ABS_MIN <= x <= ABS_MAX for x in integers(written)), entry["case_name"]
    assert disagreements(out) == []


def test_a_written_case_that_disagrees_with_its_manifest_is_a_problem_and_exit_1(tmp_path, monkeypatch):
    """The last guard: a case file that, read back, does not get its manifest's verdict (here every file is written
    with mask 0, which no expect-failed case of SetVectorMask breaks a rule by) makes gen exit 1 and names it."""
    real = gen_output.case_json

    def mask_zero(case):
        doc = real(case)
        doc["args"]["mask"] = 0
        return doc

    monkeypatch.setattr(gen_output, "case_json", mask_zero)
    out = tmp_path / "bnd"
    r = gen("SetVectorMask", "-p", "atlas-a2", "--mode", "boundary", "-o", str(out))
    assert r.exit_code == 1, r.output
    doc = json.loads((out / "manifest.json").read_text())
    failed = [c for c in doc["cases"] if c["expect"] == "failed"]
    assert failed and all(c["problem"].startswith("its case file does not break") for c in failed)
    assert not [c for c in doc["cases"] if c["expect"] == "success" and c.get("problem")]
    assert "gen: problem: " in r.stderr

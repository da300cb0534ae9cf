"""`check --format sarif`: a SARIF 2.1.0 log whose results point into the case files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from ascverify.cli import main
from ascverify.engines.report import CHECK_FORMATS
from ascverify.engines.sarif import json_positions

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "bilinear_interpolation.json"
LEVELS = {"none", "note", "warning", "error"}


def example(**args) -> dict:
    """The shipped example, args overridden; its data file named relative to the case file (`_data_beside`)."""
    doc = json.loads(EXAMPLE.read_text())
    doc["args"].update(args)
    return doc


@pytest.fixture(autouse=True)
def _data_beside(tmp_path):
    """The example's data file in each test's folder: data files are read only from the case file's folder."""
    shutil.copy(EXAMPLE.parent / "bilinear_src0.npy", tmp_path)


def sarif(*argv: str) -> tuple[dict, object]:
    r = CliRunner().invoke(main, ["check", "--format", "sarif", *argv])
    return json.loads(r.stdout), r


def validate(log: dict) -> None:
    """The properties SARIF 2.1.0 requires (the schema is not available offline): checked by hand."""
    assert log["version"] == "2.1.0" and isinstance(log["runs"], list) and log["runs"]
    assert log["$schema"].endswith("sarif-2.1.0.json")
    for run in log["runs"]:
        driver = run["tool"]["driver"]
        assert isinstance(driver["name"], str) and driver["name"]
        ids = [r["id"] for r in driver.get("rules", [])]
        assert len(ids) == len(set(ids)), "rule ids repeat"
        for rule in driver.get("rules", []):
            assert rule["shortDescription"]["text"] and rule["help"]["text"]
            assert rule["defaultConfiguration"]["level"] in LEVELS
            assert f"Source: {rule['properties']['source']}" in rule["help"]["text"]
        artifacts = run.get("artifacts", [])
        for a in artifacts:
            assert isinstance(a["location"]["uri"], str)
        for res in run["results"]:
            assert isinstance(res["message"]["text"], str) and res["message"]["text"]
            assert res["level"] in LEVELS
            assert driver["rules"][res["ruleIndex"]]["id"] == res["ruleId"]
            for loc in res["locations"] + res.get("relatedLocations", []):
                phys = loc["physicalLocation"]
                assert isinstance(phys["artifactLocation"]["uri"], str)
                assert artifacts[phys["artifactLocation"]["index"]]["location"]["uri"] == phys["artifactLocation"]["uri"]
                if "region" in phys:
                    assert phys["region"]["startLine"] >= 1 and phys["region"]["startColumn"] >= 1
                for ll in loc.get("logicalLocations", []):
                    assert ll["fullyQualifiedName"].startswith("case ")
            for rel in res.get("relatedLocations", []):
                assert isinstance(rel["id"], int) and rel["id"] >= 0
        for inv in run.get("invocations", []):
            assert isinstance(inv["executionSuccessful"], bool)
            for n in inv.get("toolExecutionNotifications", []):
                assert n["message"]["text"] and n["level"] in LEVELS


def text_at(path: Path, region: dict) -> str:
    line = path.read_text().split("\n")[region["startLine"] - 1]
    return line[region["startColumn"] - 1:]


def test_results_point_at_the_values(tmp_path):
    doc = example(hRepeat=0)
    doc["tensors"]["dst"]["addr"] = 16  # UB start addresses are 32-byte aligned
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc, indent=2))
    log, r = sarif(str(path))
    assert r.exit_code == 1 and r.stderr.strip() == "1 case: 0 valid, 1 invalid, 0 unreadable"
    validate(log)
    results = {res["ruleId"]: res for res in log["runs"][0]["results"]}
    assert set(results) >= {"bilinear.hRepeat.range", "bilinear.dst.align"}
    h = results["bilinear.hRepeat.range"]
    assert h["properties"]["jsonPointer"] == "/args/hRepeat"
    assert h["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == "case 0/args/hRepeat"
    assert text_at(path, h["locations"][0]["physicalLocation"]["region"]).startswith("0,")
    a = results["bilinear.dst.align"]
    assert a["properties"]["jsonPointer"] == "/tensors/dst/addr"
    assert text_at(path, a["locations"][0]["physicalLocation"]["region"]).startswith("16,")
    rule = log["runs"][0]["tool"]["driver"]["rules"][h["ruleIndex"]]
    assert "BilinearInterpolation, Parameters: hRepeat" in rule["help"]["text"]


def test_list_files_prefix_the_case_index_and_lines_files_use_the_line(tmp_path):
    lst = tmp_path / "list.json"
    lst.write_text(json.dumps([example(), example(vRepeat=0)], indent=1))
    log, _ = sarif(str(lst))
    validate(log)
    (res,) = [x for x in log["runs"][0]["results"] if x["ruleId"] == "bilinear.vRepeat.range"]
    assert res["properties"]["jsonPointer"] == "/1/args/vRepeat" and res["properties"]["caseIndex"] == 1
    assert text_at(lst, res["locations"][0]["physicalLocation"]["region"]).startswith("0")
    jl = tmp_path / "cases.jsonl"
    jl.write_text(json.dumps(example()) + "\n\n" + json.dumps(example()) + "\n" + json.dumps(example(hRepeat=0)) + "\n")
    log, r = sarif(str(jl))
    validate(log)
    (res,) = log["runs"][0]["results"]
    loc = res["locations"][0]
    assert loc["logicalLocations"][0]["fullyQualifiedName"] == "case 2/args/hRepeat"
    assert loc["physicalLocation"]["region"]["startLine"] == 4  # the blank line 2 holds no case
    assert res["properties"]["jsonPointer"] == "/args/hRepeat"
    assert text_at(jl, loc["physicalLocation"]["region"]).startswith("0,")


def test_pyasc_spelling_is_pointed_at_as_written(tmp_path):
    doc = {"api": "block_reduce_min", "product": "atlas-a2", "dtype": "half",
           "args": {"repeat": 300, "mask": 128, "dst_rep_stride": 1, "src_blk_stride": 1, "src_rep_stride": 8},
           "tensors": {"dst": {"position": "VECOUT", "addr": 0, "size": 4096},
                       "src": {"position": "VECIN", "addr": 8192, "size": 40000}}}
    path = tmp_path / "py.json"
    path.write_text(json.dumps(doc))
    log, _ = sarif(str(path))
    validate(log)
    res = next(x for x in log["runs"][0]["results"] if x["ruleId"] == "block_reduce_min.repeatTime.range")
    assert res["properties"]["jsonPointer"] == "/args/repeat"


def test_unreadable_cases_are_notifications(tmp_path):
    path = tmp_path / "mixed.json"
    bad = example()
    bad["args"]["hRepet"] = 1
    path.write_text(json.dumps([example(), bad]))
    log, r = sarif(str(path), str(tmp_path / "missing.json"))
    assert r.exit_code == 2
    validate(log)
    inv = log["runs"][0]["invocations"][0]
    assert inv["executionSuccessful"] is False and inv["exitCode"] == 2
    notes = inv["toolExecutionNotifications"]
    assert any("unknown argument 'hRepet'" in n["message"]["text"] and
               n["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == "case 1/args/hRepet" for n in notes)
    assert any("no such file" in n["message"]["text"] for n in notes)
    assert log["runs"][0]["results"] == []


def test_product_all_in_sarif(tmp_path):
    doc = example()
    doc["product"] = "atlas-350"
    del doc["tensors"]["sharedTmpBuffer"]
    path = tmp_path / "p.json"
    path.write_text(json.dumps(doc))
    log, r = sarif("--product", "all", str(path))
    validate(log)
    got = {(x["ruleId"], x["properties"]["product"]) for x in log["runs"][0]["results"]}
    assert got == {("bilinear.sharedTmpBuffer.required", p) for p in ("atlas-a2", "atlas-a3", "atlas-inference-aicore")}
    assert r.exit_code == 1


@pytest.mark.parametrize("fmt", CHECK_FORMATS)
def test_every_check_format_gives_the_same_verdict(fmt, tmp_path):
    path = tmp_path / "two.json"
    path.write_text(json.dumps([example(), example(vRepeat=0)]))
    r = CliRunner().invoke(main, ["check", "--format", fmt, str(path)])
    assert r.exit_code == 1 and "bilinear.vRepeat.range" in r.stdout
    assert r.stderr.strip().endswith("2 cases: 1 valid, 1 invalid, 0 unreadable")


def test_json_positions():
    text = '{"a": [1, {"b/c": "x~"}], "d": {"e": true}}'
    pos = json_positions(text)
    assert text[pos["/a/1/b~1c"]:].startswith('"x~"')
    assert text[pos["/d/e"]:].startswith("true")
    assert pos[""] == 0


def test_program_findings_point_into_calls_and_shared_tensors(tmp_path):
    doc = json.loads((ROOT / "examples" / "program_block_reduce_min.json").read_text())
    doc["calls"][1]["args"]["repeat"] = 300  # repeatTime in [0, 255]
    doc["tensors"]["z"]["addr"] = 520  # a half dst must be 16-byte aligned; call 1's dst is the shared tensor z
    path = tmp_path / "prog.json"
    path.write_text(json.dumps(doc, indent=2))
    log, r = sarif(str(path))
    assert r.exit_code == 1
    validate(log)
    got = {x["ruleId"]: x for x in log["runs"][0]["results"]}
    rep = got["block_reduce_min.repeatTime.range"]
    assert rep["properties"]["jsonPointer"] == "/calls/1/args/repeat" and rep["properties"]["call"] == 1
    assert text_at(path, rep["locations"][0]["physicalLocation"]["region"]).startswith("300")
    al = got["block_reduce_min.dst.align"]
    assert al["properties"]["jsonPointer"] == "/tensors/z/addr"
    assert text_at(path, al["locations"][0]["physicalLocation"]["region"]).startswith("520")


def test_a_program_rule_has_its_descriptor(tmp_path):
    """program.pointer.before_start belongs to no API's rule list: SARIF's ruleIndex raised KeyError (exit 3)."""
    prog = {"product": "atlas-350", "dtype": "uint16",
            "tensors": {"x": {"position": "VECIN", "addr": 256, "size": 128}},
            "calls": [{"api": "LoadAlign", "args": {"dstReg": 0, "postMode": "POST_MODE_UPDATE", "postUpdateStride": -128},
                       "tensors": {"srcAddr": "x"}},
                      {"api": "LoadAlign", "args": {"dstReg": 1}, "tensors": {"srcAddr": "x"}}]}
    path = tmp_path / "p.json"
    path.write_text(json.dumps(prog))
    log, r = sarif(str(path))
    assert r.exit_code == 1
    validate(log)
    assert "program.pointer.before_start" in [res["ruleId"] for res in log["runs"][0]["results"]]


def test_fingerprints_name_the_case_the_call_and_the_rule(tmp_path, monkeypatch):
    """partialFingerprints (a result's identity across runs): FILE:CASE:CALL:RULE:PRODUCT, CALL empty for a single
    case (it printed Python's "None" there) and the call's index in a program. Run from a folder the files are not
    in: FILE is their absolute path (CI keeps its temporary files inside the checkout, the working folder)."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    single = tmp_path / "bad.json"
    single.write_text(json.dumps(example(vROffset=70000)))
    log, r = sarif(str(single))
    assert r.exit_code == 1
    prints = {x["ruleId"]: x["partialFingerprints"]["ascverifyCaseRule/v3"] for x in log["runs"][0]["results"]}
    assert prints["bilinear.vROffset.range"] == f"{single}:0::bilinear.vROffset.range:atlas-a2"
    assert not any("None" in p for p in prints.values())
    doc = json.loads((ROOT / "examples" / "program_block_reduce_min.json").read_text())
    doc["calls"][1]["args"]["repeat"] = 300
    prog = tmp_path / "prog.json"
    prog.write_text(json.dumps(doc))
    log, _ = sarif(str(prog))
    got = {x["ruleId"]: x["partialFingerprints"]["ascverifyCaseRule/v3"] for x in log["runs"][0]["results"]}
    assert got["block_reduce_min.repeatTime.range"] == \
        f"{prog}:0:1:block_reduce_min.repeatTime.range:{doc['product']}"


def test_fingerprints_do_not_change_with_the_spelling_of_the_path(tmp_path, monkeypatch):
    """The same file named three ways from its folder (and from a folder below) has one fingerprint: the path
    relative to the working folder, with /; a file outside the working folder keeps its absolute path."""
    sub = tmp_path / "cases"
    sub.mkdir()
    shutil.copy(EXAMPLE.parent / "bilinear_src0.npy", sub)
    (sub / "bad.json").write_text(json.dumps(example(vROffset=70000)))
    monkeypatch.chdir(tmp_path)

    def prints(path: str) -> set[str]:
        log, r = sarif(path)
        assert r.exit_code == 1, r.output
        return {x["partialFingerprints"]["ascverifyCaseRule/v3"] for x in log["runs"][0]["results"]}

    want = prints("cases/bad.json")
    assert "cases/bad.json:0::bilinear.vROffset.range:atlas-a2" in want
    for spelling in ("./cases/bad.json", "cases/../cases/bad.json", str(sub / "bad.json"), "cases//bad.json"):
        assert prints(spelling) == want, spelling
    # from a folder the file is not in: its absolute path, the same for either spelling
    other = tmp_path / "elsewhere"
    other.mkdir()
    monkeypatch.chdir(other)
    outside = prints("../cases/bad.json")
    assert f"{sub / 'bad.json'}:0::bilinear.vROffset.range:atlas-a2" in outside
    assert prints(str(sub / "bad.json")) == outside

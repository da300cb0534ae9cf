"""`explain` (minimal conflicts of an invalid case) and `fix` (the nearest valid case)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import z3
from click.testing import CliRunner

from ascverify import check_case, parse_case
from ascverify.cli import main
from ascverify.engines.explain import explain_case, fix_case, keep_fields, value_term
from ascverify.engines.solver import Space
from ascverify.spec.errors import InputError

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "bilinear_interpolation.json"


def example(**args) -> dict:
    doc = json.loads(EXAMPLE.read_text())
    doc["tensors"]["src0"]["data"] = str(EXAMPLE.parent / doc["tensors"]["src0"]["data"])
    doc["args"].update(args)
    return doc


def bad_doc() -> dict:
    """The example with hRepeat = 0 and dst.size = 200 (the example's dstBlkStride 1, vROffset 128, vRepeat 2
    need (2-1)*128 + 7*1*16 + 16 = 256 elements)."""
    doc = example(hRepeat=0)
    doc["tensors"]["dst"]["size"] = 200
    return doc


def invoke(*argv: str):
    return CliRunner().invoke(main, list(argv))


def write(path: Path, doc) -> str:
    """Write the case, its data files beside it (data files are read only from the case file's folder)."""
    import shutil

    for t in doc.get("tensors", {}).values():
        src = t.get("data")
        if isinstance(src, str) and Path(src).is_absolute():
            shutil.copy(src, path.parent / Path(src).name)
            t["data"] = Path(src).name
    path.write_text(json.dumps(doc, indent=1))
    return str(path)


# -- explain ---------------------------------------------------------------------------------------------------------

def test_one_conflict_per_broken_rule_with_minimal_values():
    ex = explain_case(parse_case(bad_doc()))
    by_rule = {c.rule.id: c for c in ex.conflicts}
    assert set(by_rule) == {"bilinear.hRepeat.range", "bilinear.dst.size"}
    # hRepeat = 0 is outside [1, 255] whatever the rest: the value alone, the rule alone
    c = by_rule["bilinear.hRepeat.range"]
    assert c.values == {"hRepeat": 0} and c.others() == []
    # dst.size = 200 alone is satisfiable (vRepeat = 1 needs 7*16 + 16 = 128); with vRepeat = 2 the need is at least
    # vROffset (>= 128, its range) + 112 * dstBlkStride (>= 1, its rule) + 16 = 256 > 200, whatever those two are
    c = by_rule["bilinear.dst.size"]
    assert c.values == {"vRepeat": 2, "dst.size": 200}
    assert sorted(r.id for r in c.others()) == ["bilinear.dstBlkStride.nonzero", "bilinear.vROffset.range"]
    assert c.minimal


def test_conflict_is_minimal_in_values_and_rules():
    case = parse_case(bad_doc())
    c = next(c for c in explain_case(case).conflicts if c.rule.id == "bilinear.dst.size")
    sp = Space(case.model, case.ctx)
    values = [value_term(sp.vars[k], v) for k, v in c.values.items()]
    rules = [sp.terms[r.id] for r in c.rules]
    members = values + rules
    assert z3.Solver().check(*sp.background, *members) == z3.unsat
    for i in range(len(members)):
        assert z3.Solver().check(*sp.background, *(members[:i] + members[i + 1:])) == z3.sat, i


def test_unsupported_product_is_a_conflict_without_values():
    doc = example()
    doc["product"] = "atlas-training"
    ex = explain_case(parse_case(doc))
    ids = {c.rule.id: c for c in ex.conflicts}
    assert ids["bilinear.product.support"].values == {}
    assert ids["bilinear.product.support"].others() == []


def test_valid_case_has_nothing_to_explain():
    ex = explain_case(parse_case(example()))
    assert ex.valid and ex.conflicts == [] and ex.data_violations == []


def test_data_rules_are_listed_not_explained():
    doc = example()
    doc["tensors"]["src0Offset"]["data"] = [3] + doc["tensors"]["src0Offset"]["data"][1:]  # 3 is no block start
    ex = explain_case(parse_case(doc))
    assert ex.conflicts == []
    assert [v.id for v in ex.data_violations] == ["bilinear.src0Offset.values"]


def test_explain_cli(tmp_path):
    r = invoke("explain", write(tmp_path / "bad.json", bad_doc()))
    assert r.exit_code == 1, r.output
    lines = r.stdout.splitlines()
    assert lines[0].startswith(f"{tmp_path / 'bad.json'}:case 0: error: [bilinear.hRepeat.range] hRepeat=0")
    assert "  values: vRepeat=2, dst.size=200  (change at least one)" in lines
    assert any("[bilinear.vROffset.range]" in l and "BilinearInterpolation, Parameters: vROffset" in l for l in lines)  # the rule's source
    assert "2 broken rules explained" in r.stderr
    js = invoke("explain", "--format", "json", str(tmp_path / "bad.json"))
    doc = json.loads(js.stdout)
    assert doc["valid"] is False
    conflict = next(c for c in doc["conflicts"] if c["rule"] == "bilinear.dst.size")
    assert conflict["values"] == {"vRepeat": 2, "dst.size": 200}
    assert conflict["pointers"] == ["/args/vRepeat", "/tensors/dst/size"]
    ok = invoke("explain", str(EXAMPLE))
    assert ok.exit_code == 0 and ok.stdout == "" and "valid: nothing to explain" in ok.stderr


# -- fix -------------------------------------------------------------------------------------------------------------

def test_fix_changes_fewest_fields_then_least():
    case = parse_case(bad_doc())
    rep = fix_case(case)
    # two fields must change: hRepeat (its range) and one of vRepeat / dst.size (the conflict above); vRepeat 2 -> 1
    # (a change of 1) beats dst.size 200 -> 256 (a change of 56)
    assert rep.status == "fixed"
    assert {n: rep.fixed.env[n] for n in rep.changed} == {"hRepeat": 1, "vRepeat": 1}
    assert rep.distance == 2
    assert check_case(rep.fixed).valid


def test_fix_keeps_what_it_is_told():
    rep = fix_case(parse_case(bad_doc()), keep_fields(parse_case(bad_doc()).model, ["vRepeat"]))
    # vRepeat stays 2: dst must grow to the 256 elements it needs
    assert {n: rep.fixed.env[n] for n in rep.changed} == {"hRepeat": 1, "dst.size": 256}
    assert rep.distance == 1 + 56


def test_fix_with_conflicting_keeps_reports_the_conflict():
    case = parse_case(bad_doc())
    rep = fix_case(case, keep_fields(case.model, ["vRepeat", "dst.size"]))
    assert rep.status == "conflict" and rep.fixed is None
    assert sorted(f.field for f in rep.conflict_fixes) == ["dst.size", "vRepeat"]
    assert sorted(r.id for r in rep.conflict_rules) == ["bilinear.dst.size", "bilinear.dstBlkStride.nonzero",
                                                         "bilinear.vROffset.range"]


def test_fix_of_a_quantified_rule_uses_the_search():
    """BilinearInterpolation's dst hazard is a bounded existential over the iterations (Z3's optimizer takes none).
    On atlas-350 with hRepeat 1, vRepeat 3, vROffset 128 (256 bytes a row of dst): iteration w stores dst bytes
    [2048 + 256w, +256), so iteration 1 stores [2304, 2560), over src1[2] (at 2304 + 2*2), which iteration 2 reads
    afterwards. One change mends it: vRepeat 2 (no iteration 2)."""
    doc = {"api": "BilinearInterpolation", "product": "atlas-350", "dtype": "half",
           "args": {"mask": 128, "hRepeat": 1, "repeatMode": False, "dstBlkStride": 1, "vROffset": 128,
                    "vRepeat": 3},
           "tensors": {"dst": {"position": "VECOUT", "addr": 2048, "size": 384},
                       "src0": {"position": "VECIN", "addr": 512, "size": 512},
                       "src0Offset": {"position": "VECIN", "addr": 1536, "size": 32, "dtype": "uint32"},
                       "src1": {"position": "VECIN", "addr": 2304, "size": 8},
                       "sharedTmpBuffer": {"position": "VECCALC", "addr": 4096, "size": 16896, "dtype": "uint8"}}}
    case = parse_case(doc)
    assert [v.id for v in check_case(case).violations] == ["bilinear.dst.hazard"]
    rep = fix_case(case)
    assert rep.method == "search" and len(rep.changed) == 1
    assert check_case(rep.fixed).valid


def test_fix_cli(tmp_path, monkeypatch):
    elsewhere = tmp_path.parent / f"{tmp_path.name}-cwd"  # not above tmp_path: the --data-root it suggests is
    elsewhere.mkdir()                                      # shown relative to the current folder when below it
    monkeypatch.chdir(elsewhere)
    path = write(tmp_path / "bad.json", bad_doc())
    out = tmp_path / "sub" / "fixed.json"
    out.parent.mkdir()
    r = invoke("fix", path, "-o", str(out))
    assert r.exit_code == 0, r.output  # a valid case was written
    assert r.stdout.splitlines()[1:3] == ["  hRepeat: 0 -> 1", "  vRepeat: 2 -> 1"]
    assert r.stdout.splitlines()[3:] == [f"  note: the data of src0 is ../bilinear_src0.npy, outside the folder of the "
                                         f"fixed file: check it with --data-root {tmp_path} (or copy the data beside it)"]
    assert "2 fields changed (total change 2)" in r.stdout
    fixed = json.loads(out.read_text())
    assert fixed["args"]["hRepeat"] == 1 and fixed["args"]["vRepeat"] == 1
    # the data file beside bad.json, referenced from sub/fixed.json
    assert (out.parent / fixed["tensors"]["src0"]["data"]).resolve() == (tmp_path / "bilinear_src0.npy").resolve()
    assert invoke("check", "--data-root", str(tmp_path), str(out)).exit_code == 0
    r = invoke("fix", path, "--keep", "vRepeat,dst.size")
    assert r.exit_code == 1 and "no valid case keeps these values" in r.stdout and "keep vRepeat=2" in r.stdout
    r = invoke("fix", str(EXAMPLE))
    assert r.exit_code == 0 and "valid: nothing to fix" in r.stderr


@pytest.mark.parametrize("argv, message", [
    (["fix", "{bad}", "--keep", "vRepet"], "--keep: unknown parameter 'vRepet' of BilinearInterpolation (did you mean 'vRepeat'?)"),
    (["explain", "{bad}", "--index", "3"], "--index: no case 3: the file holds 1 case"),
    (["explain", "{missing}"], "no such file"),
    (["fix", "{missing}"], "no such file"),
])
def test_bad_input_is_one_line_exit_2(tmp_path, argv, message):
    bad = write(tmp_path / "bad.json", bad_doc())
    argv = [a.format(bad=bad, missing=str(tmp_path / "nope.json")) for a in argv]
    r = invoke(*argv)
    assert r.exit_code == 2, r.output
    assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert "Traceback" not in r.output


def test_keep_names():
    case = parse_case(bad_doc())
    assert keep_fields(case.model, ["dst"]) == ["dst.addr", "dst.size", "dst.position"]
    assert keep_fields(case.model, ["mask"])[:2] == ["mask.bitwise", "mask.count"]
    assert keep_fields(case.model, ["dst.addr", "product"]) == ["dst.addr"]
    with pytest.raises(InputError):
        keep_fields(case.model, ["dst.adr"])

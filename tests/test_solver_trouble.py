"""Correct answers under trouble: an undecided solver query (timeout, resource limit) is reported as undecided by
every command that asks the solver, never as valid, invalid, impossible or "no difference".

The solver is made to give up deterministically: `z3.Solver.check` and `z3.Optimize.check` answer ``unknown``
(reason "timeout"), after a scripted answer or two where a test needs one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import z3
from click.testing import CliRunner

from ascverify import get_api, parse_case
from ascverify.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "bilinear_interpolation.json"


def bad_doc() -> dict:
    """The shipped example with hRepeat = 0 (out of range) and dst.size = 200 (vRepeat 2 needs 256)."""
    doc = json.loads(EXAMPLE.read_text())
    del doc["tensors"]["src0"]["data"]  # a file beside the example: outside the test's folder (its rules go unchecked)
    doc["args"]["hRepeat"] = 0
    doc["tensors"]["dst"]["size"] = 200
    return doc


def write(path: Path, doc) -> str:
    path.write_text(json.dumps(doc))
    return str(path)


def invoke(*argv: str):
    return CliRunner().invoke(main, list(argv))


@pytest.fixture
def give_up(monkeypatch):
    """``give_up(first=())``: the solver answers the first queries with ``first`` ("sat" or "unsat", without
    solving: the tests need these answers, not Z3's, which on the whole Bilinear space can take a while) and
    every later query with unknown (reason "timeout")."""

    def install(first: tuple[str, ...] = ()) -> dict:
        state = {"asked": 0}
        script = [{"sat": z3.sat, "unsat": z3.unsat}[a] for a in first]
        for cls in (z3.Solver, z3.Optimize):
            def check(self, *args):
                state["asked"] += 1
                return script[state["asked"] - 1] if state["asked"] <= len(script) else z3.unknown

            monkeypatch.setattr(cls, "check", check)
            monkeypatch.setattr(cls, "reason_unknown", lambda self: "timeout")
        return state

    return install


def _no_claim(text: str) -> None:
    assert "valid: nothing" not in text and "Traceback" not in text


# -- explain, fix ------------------------------------------------------------------------------------------------------

def test_explain_reports_undecided_instead_of_a_made_up_conflict(tmp_path, give_up):
    path = write(tmp_path / "bad.json", bad_doc())
    give_up()
    r = invoke("explain", path)
    assert r.exit_code == 2, r.output
    assert "undecided: the solver gave up (timeout/resource limit)" in r.output
    # the broken rules are still named (check decides them without the solver), but no conflict is claimed
    assert "[bilinear.dst.size]" in r.stdout and "values:" not in r.stdout
    _no_claim(r.output)
    js = invoke("explain", "--format", "json", path)
    assert js.exit_code == 2
    doc = json.loads(js.stdout)
    assert doc["valid"] is False and doc["undecided"] == ["bilinear.dst.size", "bilinear.hRepeat.range"] or \
        sorted(doc["undecided"]) == ["bilinear.dst.size", "bilinear.hRepeat.range"]
    assert all(c.get("undecided") for c in doc["conflicts"])


def test_fix_never_calls_an_invalid_case_valid_when_the_conflict_is_undecided(tmp_path, give_up):
    """The kept values conflict (decided), but the query for the minimal conflict times out: before, the command
    said "valid: nothing to fix" and exited 0."""
    path = write(tmp_path / "bad.json", bad_doc())
    give_up(first=("unsat",))
    r = invoke("fix", path, "--keep", "vRepeat,dst.size")
    _no_claim(r.output)
    assert r.exit_code == 1, r.output
    assert "no valid case keeps these values" in r.stdout
    assert "undecided: the solver gave up (timeout/resource limit)" in r.output


def test_fix_exits_2_when_no_query_is_decided(tmp_path, give_up):
    path = write(tmp_path / "bad.json", bad_doc())
    out = tmp_path / "fixed.json"
    give_up()
    r = invoke("fix", path, "-o", str(out))
    assert r.exit_code == 2, r.output
    assert "undecided: the solver gave up (timeout/resource limit)" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and not out.exists()
    _no_claim(r.output)
    js = invoke("fix", "--format", "json", path)
    assert js.exit_code == 2 and json.loads(js.stdout)["undecided"] is True


def test_fix_library_reports_undecided(give_up):
    from ascverify.engines.explain import fix_case, keep_fields

    case = parse_case(bad_doc())
    give_up(first=("unsat",))
    rep = fix_case(case, keep_fields(case.model, ["vRepeat", "dst.size"]))
    assert rep.status == "conflict" and rep.undecided  # a conflict is proven, its core is not
    give_up()
    rep = fix_case(case)
    assert rep.status == "undecided" and rep.fixed is None


# -- synth -------------------------------------------------------------------------------------------------------------

def test_synth_undecided_first_query(give_up):
    give_up()
    r = invoke("synth", "BilinearInterpolation", "--product", "atlas-a2", "-n", "3")
    assert r.exit_code == 2, r.output
    assert "undecided: the solver gave up (timeout/resource limit)" in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_synth_shortfall_from_undecided_queries_is_not_success(give_up):
    """The space is satisfiable (the first query, decided) but every query for a case times out: before, the command
    exited 0 with "found 0 distinct valid cases"."""
    give_up(first=("sat",))
    r = invoke("synth", "BilinearInterpolation", "--product", "atlas-a2", "-n", "3")
    assert r.exit_code == 2, r.output
    assert r.stdout == ""
    assert "undecided" in r.stderr and "0 of the 3" in r.stderr


def test_synth_conflict_with_undecided_core(give_up):
    """The --fix values conflict (decided), the minimal core is undecided: say so rather than list nothing."""
    give_up(first=("unsat",))
    r = invoke("synth", "BilinearInterpolation", "--product", "atlas-a2", "--fix", "vROffset=128",
               "--fix", "dstBlkStride=8", "--fix", "vRepeat=2")
    assert r.exit_code == 1, r.output
    assert "no valid BilinearInterpolation case" in r.stderr and r.stdout == ""  # (stdout holds cases only)
    assert "undecided: the solver gave up (timeout/resource limit)" in r.output


def test_space_is_satisfiable_raises_undecided(give_up):
    from ascverify.engines.solver import Space, Undecided

    model = get_api("BilinearInterpolation")
    sp = Space(model, model.context("atlas-a2"))
    give_up()
    with pytest.raises(Undecided):
        sp.is_satisfiable()


# -- gen ---------------------------------------------------------------------------------------------------------------

def test_gen_boundary_undecided_targets_are_not_impossible(give_up):
    from ascverify.engines.gen import generate

    model = get_api("BilinearInterpolation")
    give_up()
    g = generate(model, model.context("atlas-a2", "half"), "boundary", None, seed=0)
    statuses = {t.id: t.status for t in g.report["targets"]}
    assert "impossible" not in statuses.values(), [k for k, v in statuses.items() if v == "impossible"]
    assert "covered" not in statuses.values()
    undecided = [t for t in g.report["targets"] if t.status == "unknown"]
    assert undecided and all(t.reason.startswith("undecided: the solver gave up") for t in undecided)


def test_gen_negative_data_rules_undecided_not_impossible(give_up):
    from ascverify.engines.gen import generate

    model = get_api("BilinearInterpolation")
    give_up()
    g = generate(model, model.context("atlas-a2", "half"), "negative", None, seed=0)
    t = next(t for t in g.report["targets"] if t.rule == "bilinear.src0Offset.values")
    assert t.status == "unknown" and t.reason.startswith("undecided")


def test_gen_cli_lists_undecided_targets(tmp_path, give_up):
    give_up()
    r = invoke("gen", "SetVectorMask", "--product", "atlas-a2", "--mode", "negative", "-o", str(tmp_path / "n"))
    assert "gen:   unknown: [set_vector_mask.mask.count.range] broken: undecided: the solver gave up" in r.stderr
    assert "Traceback" not in r.output


# -- lint, diff-products ------------------------------------------------------------------------------------------------

def test_lint_lists_every_undecided_query(give_up):
    from ascverify.engines.lint import lint_context

    give_up()
    rep = lint_context(get_api("BilinearInterpolation"), "atlas-a2", "half", timeout_ms=1237)  # not cached
    assert rep.findings == []  # nothing decided, nothing found
    assert rep.undecided and rep.undecided == rep.unknown
    # a pair whose conditions the solver could not decide is undecided, not "the conditions exclude each other"
    assert any(u.startswith("contradiction") for u in rep.undecided)
    assert rep.to_json()["undecided"] == len(rep.undecided)


def test_lint_cli_counts_undecided(give_up):
    give_up()
    r = invoke("lint", "SetVectorMask", "--product", "atlas-a2", "-j", "1", "--timeout-ms", "1239", "--format", "json")
    doc = json.loads(r.stdout)
    assert doc["undecided"] > 0
    assert all("undecided" in c for c in doc["contexts"])


def test_diff_products_undecided_is_not_a_difference(give_up):
    from ascverify.engines.product_diff import diff_api

    give_up()
    d = diff_api(get_api("BilinearInterpolation"), "atlas-a2", "atlas-350")
    undecided = [r for r in d.rules if r.kind == "undecided"]
    assert undecided and all(r.detail.startswith("undecided: the solver gave up") for r in undecided)
    assert d.undecided == [r.rule.id for r in undecided]
    assert not [r for r in d.rules if r.kind == "differs" and r not in undecided]
    r = invoke("diff-products", "atlas-a2", "atlas-350", "BilinearInterpolation")
    assert "undecided: [bilinear.dst.bounds]" in r.stdout

"""`ascverify lint`: legal cases exist, vacuous, redundant and contradicting rules, explained by spec notes."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from ascverify import get_api
from ascverify.cases.case import Case
import ascverify.engines.lint as lint_engine
from ascverify.cli import main
from ascverify.engines.lint import definition_problems, lint, lint_context
from ascverify.spec.logic import Implies
from ascverify.spec.model import ApiModel, SpecNote
from ascverify.spec.params import BOOL, UINT8, Arg
from ascverify.spec.rules import WARNING, field_range, rule

SRC = "test page"


class Toy(ApiModel):
    """Not registered: a model built to hold one of each finding."""

    name = "Toy"
    prefix = "toy"
    seed = SRC
    summary = "lint fixture"
    support = {"atlas-a2": ("half",)}
    default_dtype = "half"
    args = (Arg("x", UINT8, SRC), Arg("y", UINT8, SRC), Arg("flag", BOOL, SRC), Arg("g", BOOL, SRC))
    notes = (SpecNote("toy.wide", "Two ranges for y", "y in [0, 10]", "the page gives both", (SRC,)),)
    lint_expected = {"redundant:toy.y.wide": "toy.wide"}

    def api_rules(self):
        # uint8 is [0, 255] already: nothing can break it
        yield field_range("toy.x.full", "x", 0, 255, SRC)
        # [0, 10] implies [0, 20]
        yield field_range("toy.y.small", "y", 0, 10, SRC)
        yield field_range("toy.y.wide", "y", 0, 20, SRC)
        # with flag, x >= 200 and x <= 100 cannot both hold (flag = false is legal: a legal case exists)
        yield field_range("toy.x.big", "x", 200, 255, SRC, when=lambda v, ctx: v.flag)
        yield field_range("toy.x.small", "x", 0, 100, SRC, when=lambda v, ctx: v.flag)
        # g is banned on a 16-bit type by design (its requirement is false here), and a rule about g never applies
        yield rule("toy.g.ban", ("g", "dtype"), lambda v, ctx: ctx.dtype.bits > 16, "no g for 16-bit T", SRC,
                   when=lambda v, ctx: v.g)
        yield rule("toy.g.needs", ("g", "y"), lambda v, ctx: Implies(v.g, v.y >= 5), "g needs y >= 5", SRC)


class NoCase(ApiModel):
    name = "NoCase"
    prefix = "nocase"
    seed = SRC
    summary = "lint fixture without a legal case"
    support = {"atlas-a2": ("half",)}
    default_dtype = "half"
    args = (Arg("x", UINT8, SRC),)
    lint_expected = {"redundant:nocase.missing": "nope"}

    def api_rules(self):
        yield field_range("nocase.x.low", "x", 10, 255, SRC)
        yield field_range("nocase.x.high", "x", 0, 5, SRC)


def test_each_kind_of_finding():
    rep = lint_context(Toy(), "atlas-a2", "half")
    assert rep.legal == "yes"
    found = {(f.kind, tuple(f.rules)): f for f in rep.findings}
    assert set(found) == {("vacuous", ("toy.x.full",)), ("redundant", ("toy.y.wide",)),
                          ("contradiction", ("toy.x.big", "toy.x.small"))}
    wide = found[("redundant", ("toy.y.wide",))]
    assert wide.related == ["toy.y.small"] and wide.note == "toy.wide"  # explained
    assert not found[("vacuous", ("toy.x.full",))].explained
    # by design: the ban, and the rule its ban makes redundant
    assert any(s.startswith("toy.g.ban: forbids its condition") for s in rep.by_design)
    assert any(s.startswith("toy.g.needs: never applies") for s in rep.by_design)
    # rules about the context only (product support, element types) are not findings
    assert "toy.product.support" in rep.context_rules and "toy.dtype.support" in rep.context_rules
    assert rep.unknown == []


def test_no_legal_case_and_the_pair_that_causes_it():
    rep = lint_context(NoCase(), "atlas-a2", "half")
    assert rep.legal == "no"
    kinds = {(f.kind, tuple(f.rules)) for f in rep.findings}
    # x >= 10 and x <= 5: a minimal core of two, and the contradicting pair
    assert ("no-legal-case", ("nocase.x.low", "nocase.x.high")) in kinds
    assert ("contradiction", ("nocase.x.low", "nocase.x.high")) in kinds
    assert not any(f.kind == "redundant" for f in rep.findings)  # nothing is implied when nothing holds


def test_lint_expected_is_checked():
    problems = definition_problems(NoCase())
    assert problems == ["NoCase: lint_expected names unknown rule 'nocase.missing'",
                        "NoCase: lint_expected maps 'redundant:nocase.missing' to unknown spec note 'nope'"]
    assert definition_problems(Toy()) == []


def test_registered_model_finding_on_training():
    """BlockReduceMin on atlas-training: dstRepStride in [1, 65535] (no 0 there) implies dstRepStride in [0, 65535]."""
    rep = lint_context(get_api("BlockReduceMin"), "atlas-training", "half")
    assert rep.legal == "yes"
    red = [f for f in rep.findings if f.kind == "redundant"]
    assert [(f.rules, f.related) for f in red] == [(["block_reduce_min.dstRepStride.range"],
                                                    ["block_reduce_min.dstRepStride.nonzero"])]
    assert lint_context(get_api("BlockReduceMin"), "atlas-a2", "half").findings == []


def test_same_rules_reuse_one_lint():
    model = get_api("BlockReduceMin")
    a = lint_context(model, "atlas-a2", "half")
    b = lint_context(model, "atlas-a3", "half")  # same buffers, same rules
    assert b.same_as == "atlas-a2 (T=half)" and b.queries == 0
    assert [f.rules for f in a.findings] == [f.rules for f in b.findings]


def test_lint_cli():
    r = CliRunner().invoke(main, ["lint", "SetVectorMask", "--product", "atlas-a2", "-j", "1"])
    assert r.exit_code == 0, r.output
    contexts = len(get_api("SetVectorMask").support["atlas-a2"])  # one per element type
    assert f"lint: {contexts} contexts of 1 API in" in r.stderr and "0 unexplained" in r.stderr
    r = CliRunner().invoke(main, ["lint", "BlockReduceMin", "--product", "atlas-training", "--format", "json", "-j", "1"])
    doc = json.loads(r.stdout)
    (ctx,) = doc["contexts"]
    assert ctx["legal_case_exists"] == "yes"
    assert [f["rules"] for f in ctx["findings"]] == [["block_reduce_min.dstRepStride.range"]]
    assert r.exit_code == (0 if ctx["findings"][0]["explained_by"] else 1)


@pytest.mark.parametrize("argv, message", [
    (["lint", "Bilinear"], "unknown API 'Bilinear' (did you mean 'BilinearInterpolation'?)"),
    (["lint", "--product", "atlas-9"], "--product: unknown product 'atlas-9'"),
])
def test_lint_bad_input(argv, message):
    r = CliRunner().invoke(main, argv)
    assert r.exit_code == 2 and message in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_lint_with_two_workers_gives_the_reports_of_one_process():
    """The worker pool (a forkserver: a forked child of a threaded process can hang on a copied lock) returns
    the same reports, in context order, as linting in this process."""
    models = [get_api("SetVectorMask"), get_api("MaskGenWithRegTensor")]

    def summary(reports):
        return [(r.api, r.product, r.dtype, r.legal, sorted(f.kind + ":" + ",".join(f.rules) for f in r.findings))
                for r in reports]

    one = lint(models, jobs=1)
    two = lint(models, jobs=2)
    assert len(one) >= 2
    assert summary(two) == summary(one)


def _breakable_giving_up(monkeypatch, rule_id: str, give_up: int) -> list[int | None]:
    """`_Linter.breakable` answering "unknown" for ``rule_id``'s first ``give_up`` questions (as Z3 does when the
    pivots, or what the process asked before, make it hard); the timeouts it was asked with, in order."""
    from ascverify.engines import lint as lint_module

    real = lint_module._Linter.breakable
    asked: list[int | None] = []

    def breakable(self, r, hold, pivots, *, timeout_ms=None):
        if r.id != rule_id:
            return real(self, r, hold, pivots, timeout_ms=timeout_ms)
        asked.append(timeout_ms)
        if len(asked) <= give_up:
            return "unknown"
        return real(self, r, hold, pivots, timeout_ms=timeout_ms)

    def sample(model, ctx, first, space, n=48):
        # Toy is not registered, so the construction cannot build its cases: three valid ones, made by hand
        env = model.default_env()
        return [Case(model, ctx, {**env, "x": k, "y": k}) for k in (1, 2, 3)]

    monkeypatch.setattr(lint_module._Linter, "breakable", breakable)
    monkeypatch.setattr(lint_module, "_sample", sample)
    lint_module._CACHE.clear()
    return asked


def test_redundancy_asked_again_with_other_pivots(monkeypatch):
    """An undecided redundancy question is asked again with another valid case's pivots, for a short time each,
    before the first case's pivots get the whole timeout: the answer Z3 finds there is the finding."""
    from ascverify.engines.lint import FIRST_TRY_MS

    asked = _breakable_giving_up(monkeypatch, "toy.y.wide", give_up=1)
    rep = lint_context(Toy(), "atlas-a2", "half", timeout_ms=60_000)
    assert ("redundant", ["toy.y.wide"]) in [(f.kind, f.rules) for f in rep.findings]
    assert rep.unknown == []
    assert asked == [FIRST_TRY_MS, FIRST_TRY_MS]  # the second case's pivots decided it


def test_redundancy_undecided_with_every_pivot_is_unknown(monkeypatch):
    """Never called redundant or not when every try is undecided: reported as unknown, after the short tries and
    one with the whole timeout."""
    from ascverify.engines.lint import FIRST_TRY_MS, PIVOT_CASES

    asked = _breakable_giving_up(monkeypatch, "toy.y.wide", give_up=10**6)
    rep = lint_context(Toy(), "atlas-a2", "half", timeout_ms=60_000)
    assert "redundant toy.y.wide" in rep.unknown
    assert not [f for f in rep.findings if f.rules == ["toy.y.wide"]]
    assert asked == [FIRST_TRY_MS] * PIVOT_CASES + [60_000]


def test_pivot_tries():
    from ascverify.engines.lint import FIRST_TRY_MS, _pivot_tries

    assert _pivot_tries(["a"], 60_000) == [("a", 60_000)]  # one case: one try, the whole timeout
    assert _pivot_tries(["a", "b", "c"], 60_000) == [("a", FIRST_TRY_MS), ("b", FIRST_TRY_MS), ("c", FIRST_TRY_MS),
                                                     ("a", 60_000)]
    # a timeout no longer than a first try: each case once, for the whole timeout (no try asked twice)
    assert _pivot_tries(["a", "b"], 2_000) == [("a", 2_000), ("b", 2_000)]


class AlwaysWarned(ApiModel):
    """A warning that fires whenever it applies in a context (the page's list leaves out a type the vendor's code
    takes): by design, not a contradiction with the rules about the same fields, and no ban on them."""

    name = "AlwaysWarned"
    prefix = "warned"
    seed = SRC
    summary = "lint fixture"
    support = {"atlas-a2": ("half",)}
    default_dtype = "half"
    args = (Arg("x", UINT8, SRC), Arg("g", BOOL, SRC))

    def api_rules(self):
        yield rule("warned.g.type", ("g", "dtype"), lambda v, ctx: ctx.dtype.bits > 16, "g with a 16-bit T", SRC,
                   when=lambda v, ctx: v.g, severity=WARNING)
        yield rule("warned.g.x", ("g", "x"), lambda v, ctx: Implies(v.g, v.x >= 5), "g needs x >= 5", SRC)


def test_a_warning_that_fires_whenever_it_applies_is_by_design():
    rep = lint_context(AlwaysWarned(), "atlas-a2", "half")
    assert rep.findings == [], rep.findings  # was: contradictions of warned.g.type with itself and warned.g.x
    assert any(s.startswith("warned.g.type: a warning whenever it applies") for s in rep.by_design)
    assert not any(s.startswith("warned.g.x") for s in rep.by_design)  # a warning bans nothing: g.x still applies


def test_a_product_no_api_named_supports_is_bad_input():
    """audit 22: `lint BlockReduceMin -p atlas-inference-vectorcore` linted 0 contexts and exited 0, while fuzz
    refuses the same request (docs/cli.md: an unsupported product is exit 2)."""
    r = CliRunner().invoke(main, ["lint", "BlockReduceMin", "-p", "atlas-inference-vectorcore"])
    assert r.exit_code == 2 and r.stdout == ""
    assert "nothing to lint: BlockReduceMin is not supported on atlas-inference-vectorcore" in r.stderr
    assert "atlas-inference-vectorcore" not in r.stderr.split("(supported:")[1]
    # one supported product among those given is enough
    assert CliRunner().invoke(main, ["lint", "SetMaskNorm", "-p", "atlas-inference-vectorcore", "-p", "atlas-a2",
                                     "--timeout", "5"]).exit_code == 0


def test_an_interrupted_lint_prints_what_it_linted(monkeypatch):
    """SIGTERM or Ctrl-C during `lint --format json` left an empty file: the contexts linted before it are printed,
    in context order, in a document marked interrupted, and the exit status is 130."""
    real = lint_engine._worker
    calls = []

    def stop_at_the_second_api(job):
        calls.append(job[0][0][0])
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(job)

    monkeypatch.setattr(lint_engine, "_worker", stop_at_the_second_api)
    r = CliRunner().invoke(main, ["lint", "SetMaskNorm", "SetMaskCount", "-j", "1", "--format", "json"])
    assert r.exit_code == 130, r.output
    doc = json.loads(r.stdout)
    assert doc["interrupted"] is True
    first = [c for c in doc["contexts"]]
    assert first and {c["api"] for c in first} == {calls[0]}
    want = [(p, t) for m, p, t in lint_engine.contexts([get_api(calls[0])], None)]
    assert [(c["product"], c["dtype"]) for c in first] == want
    assert "lint: interrupted after" in r.stderr and r.stderr.rstrip().endswith("interrupted (SIGINT)")


def test_tries_stay_in_the_type_and_leave_the_value():
    from ascverify.engines.lint import _tries

    assert _tries(5, 0, 255) == [0, 1, 2, 4, 6, 10, 254, 255]  # neighbours, half, double, the type's ends
    assert _tries(0, 0, 1) == [1]
    assert all(-8 <= v <= 7 and v != -8 for v in _tries(-8, -8, 7))


def _findings(rep):
    return (rep.legal, sorted((f.kind, tuple(f.rules), f.detail) for f in rep.findings), sorted(rep.by_design),
            rep.unknown)


@pytest.mark.parametrize("api, product, dtype", [("LoadDataWithStride", "atlas-350", "half"),
                                                 ("BilinearInterpolation", "atlas-a2", "half"),
                                                 ("BlockReduceMin", "atlas-a2", "float")])
def test_rules_broken_alone_by_a_moved_field_give_the_solvers_findings_with_fewer_queries(monkeypatch, api, product,
                                                                                         dtype):
    """A rule some valid case breaks alone once one field it reads is moved (checked concretely, confirmed by one
    query with every field pinned) is neither vacuous nor redundant: the lint asks no search for it. The findings
    are those of the solver alone; before, LoadDataWithStride's lint on atlas-350 asked 2 to 3 times the queries."""
    model = get_api(api)
    lint_engine._CACHE.clear()
    fast = lint_context(model, product, dtype)
    assert fast.unknown == []
    monkeypatch.setattr(lint_engine, "_broken_alone", lambda *a: {})  # the solver alone, as before
    lint_engine._CACHE.clear()
    slow = lint_context(model, product, dtype)
    assert _findings(fast) == _findings(slow)
    assert fast.queries < 0.8 * slow.queries


def test_a_moved_case_the_solver_does_not_confirm_is_not_taken_for_a_break(monkeypatch):
    """The concrete try only proposes: a proposed case that breaks nothing (here, the valid case itself) is refused
    by the confirming query, and the rule is asked the usual way (Toy's redundant rule is still found)."""
    real = lint_engine._broken_alone
    proposed = []

    def unbroken(L, sample, rules, reads):
        proposed.extend(r.id for r in rules)
        return {r.id: sample[0] for r in rules}  # a valid case: it breaks none of them

    _breakable_giving_up(monkeypatch, "none", give_up=0)  # Toy's hand-made valid cases
    monkeypatch.setattr(lint_engine, "_broken_alone", unbroken)
    rep = lint_context(Toy(), "atlas-a2", "half", timeout_ms=60_000)
    assert "toy.y.wide" in proposed
    assert ("redundant", ["toy.y.wide"]) in [(f.kind, f.rules) for f in rep.findings]
    assert ("vacuous", ["toy.x.full"]) in [(f.kind, f.rules) for f in rep.findings]
    assert real is not unbroken
